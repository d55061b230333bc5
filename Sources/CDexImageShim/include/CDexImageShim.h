// CDexImageShim: the only C that DexImaging calls.
//
// Every libjpeg / libpng call that can fail runs under setjmp inside this file: the libraries'
// fatal error handlers longjmp back here and the functions return a DEX_STATUS_* code plus the
// library's own message. Warnings are counted and never abort. No libjpeg / libpng type leaks
// into this header, so Swift sees plain integers, pointers and opaque handles.
//
// The resampler lives here too: it is the hot loop of the whole pipeline and written so that the
// C compiler auto-vectorises the vertical pass (contiguous uint8 -> int32 multiply-accumulate).
#ifndef CDEXIMAGESHIM_H
#define CDEXIMAGESHIM_H

// Empty unless on Linux with the SystemImageCodecs trait: Package.swift defines DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS
// for this target's C only then. Swift's importer does not see that define; it is recognised by
// __swift__, and Swift imports this module only under `os(Linux) && SystemImageCodecs`.
#if defined(__linux__) && (defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS) || defined(__swift__))

#include <stddef.h>
#include <stdint.h>

#include "CDexProcess.h"
#include "CDexStatus.h"  // DEX_STATUS_*: the result codes of every fallible function here

#ifdef __cplusplus
extern "C" {
#endif

/// JPEG colour spaces as reported by the header (mirrors J_COLOR_SPACE's first values).
enum {
  DEX_JPEG_CS_UNKNOWN = 0,
  DEX_JPEG_CS_GRAYSCALE = 1,
  DEX_JPEG_CS_RGB = 2,
  DEX_JPEG_CS_YCBCR = 3,
  DEX_JPEG_CS_CMYK = 4,
  DEX_JPEG_CS_YCCK = 5,
};

#define DEX_MESSAGE_CAPACITY 200

/// The largest width or height any decoder accepts: JPEG's own format limit, applied to PNG too,
/// so that a long thin image (100 000 000 x 1) cannot ask for rows of hundreds of megabytes.
#define DEX_MAX_IMAGE_SIDE 65535
/// The most scans a JPEG may have: real progressive encoders write about ten, and every scan
/// walks the whole coefficient buffer again, so thousands of tiny scans make decoding quadratic.
#define DEX_MAX_JPEG_SCANS 100
/// The longest EXIF block copied out of a file (HEIF's Exif item): the size libpng may hold for
/// any one ancillary chunk (png.c's DEX_PNG_MAX_CHUNK_BYTES), an eXIf chunk among them. A longer
/// block is not read (the image still decodes, without a date).
#define DEX_MAX_EXIF_BYTES (8u << 20)

/// What a JPEG header says.
typedef struct {
  int32_t width;
  int32_t height;
  int32_t components;
  int32_t color_space;
  int32_t progressive;
  /// An Adobe APP14 marker was present (CMYK/YCCK data is then stored inverted).
  int32_t adobe_marker;
  /// Horizontal/vertical sampling factors of the first component (2,2 = 4:2:0).
  int32_t h_samp;
  int32_t v_samp;
  /// Bytes of the whole-image coefficient buffer libjpeg allocates for a progressive or
  /// multi-scan file (0 for a single-scan baseline file), known before any of it is allocated.
  uint64_t coefficient_bytes;
} dex_jpeg_header;

typedef struct dex_jpeg_decoder dex_jpeg_decoder;

/// Creates a decoder; NULL when out of memory.
dex_jpeg_decoder *dex_jpeg_decoder_create(void);
void dex_jpeg_decoder_destroy(dex_jpeg_decoder *decoder);
/// Whether progressive JPEGs' whole-image coefficient buffers are advised for transparent huge
/// pages (default 1). Call before decoding.
void dex_jpeg_decoder_set_huge_pages(dex_jpeg_decoder *decoder, int32_t enabled);
/// Caps the memory libjpeg may use for its whole-image buffers (libjpeg's max_memory_to_use);
/// beyond it the decode fails with DEX_STATUS_LIBRARY_ERROR instead of allocating. 0 = no cap.
/// Call before dex_jpeg_read_header.
void dex_jpeg_decoder_set_memory_limit(dex_jpeg_decoder *decoder, uint64_t max_bytes);
/// The last library message (empty string when none).
const char *dex_jpeg_decoder_message(const dex_jpeg_decoder *decoder);
/// Number of warnings libjpeg emitted (corrupt data it recovered from).
int32_t dex_jpeg_decoder_warning_count(const dex_jpeg_decoder *decoder);

/// Reads the header of `data` (which must stay alive until the decoder is destroyed).
int32_t dex_jpeg_read_header(dex_jpeg_decoder *decoder, const uint8_t *data, size_t size,
                             dex_jpeg_header *header);

/// The output size libjpeg will produce at scale_num/8 (1...16), without decoding.
int32_t dex_jpeg_scaled_size(dex_jpeg_decoder *decoder, int32_t scale_num, int32_t *width,
                             int32_t *height);

/// Decodes at scale_num/8 and resamples to dst_width x dst_height RGB8 in `dst` (row stride
/// `dst_stride`). When dst size equals the scaled size no resampling happens. `fancy_upsampling`
/// 0 selects libjpeg's faster merged chroma upsampling. When `allow_partial` is 0 a premature
/// end of data returns DEX_STATUS_TRUNCATED; otherwise missing rows are grey and *partial is set.
int32_t dex_jpeg_decode(dex_jpeg_decoder *decoder, int32_t scale_num, int32_t fancy_upsampling,
                        int32_t allow_partial, uint8_t *dst, int32_t dst_width,
                        int32_t dst_height, size_t dst_stride, int32_t *partial);

/// Encodes RGB8 pixels to a malloc'ed JPEG (free with dex_free). quality 1...100;
/// subsampling 420, 422 or 444; progressive 0/1. `message` receives the library's text.
int32_t dex_jpeg_encode_rgb(const uint8_t *pixels, int32_t width, int32_t height, size_t stride,
                            int32_t quality, int32_t subsampling, int32_t progressive,
                            uint8_t **out_data, size_t *out_size, char *message);

void dex_free(void *pointer);

/// What a PNG header says.
typedef struct {
  int32_t width;
  int32_t height;
  int32_t bit_depth;
  int32_t color_type;
  int32_t interlaced;
  /// Length of an eXIf chunk seen before the image data (0 when none).
  int32_t exif_size;
} dex_png_header;

typedef struct dex_png_decoder dex_png_decoder;

dex_png_decoder *dex_png_decoder_create(void);
void dex_png_decoder_destroy(dex_png_decoder *decoder);
const char *dex_png_decoder_message(const dex_png_decoder *decoder);
int32_t dex_png_decoder_warning_count(const dex_png_decoder *decoder);
/// The most memory libpng itself held at once for this decoder (its structures and buffered
/// chunks, not the shim's rows or image): at most 64 MiB, whatever chunks the file carries.
size_t dex_png_decoder_library_peak_bytes(const dex_png_decoder *decoder);

/// Reads the header; refuses (DEX_STATUS_TOO_LARGE, with the header's width and height filled
/// in) images wider/taller than max_dimension (at most DEX_MAX_IMAGE_SIDE) or with more than
/// max_pixels pixels, checked on the IHDR bytes before libpng parses anything.
int32_t dex_png_read_header(dex_png_decoder *decoder, const uint8_t *data, size_t size,
                            uint32_t max_dimension, uint64_t max_pixels, dex_png_header *header);
/// Copies up to `capacity` bytes of the eXIf payload (raw TIFF) into `buffer`.
int32_t dex_png_copy_exif(dex_png_decoder *decoder, uint8_t *buffer, size_t capacity);

/// Decodes to RGB8 composited on (bg_r, bg_g, bg_b) and resamples to dst_width x dst_height.
int32_t dex_png_decode(dex_png_decoder *decoder, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b,
                       int32_t allow_partial, uint8_t *dst, int32_t dst_width, int32_t dst_height,
                       size_t dst_stride, int32_t *partial);

/// How many images libheif decodes at once for one file (a grid's tiles): set on every context.
#define DEX_HEIF_DECODING_THREADS 4

/// What the primary image of a HEIF / AVIF file is, read through libheif without decoding.
typedef struct {
  /// Size after libheif's transforms (irot / imir / clap): what is displayed and decoded.
  int32_t width;
  int32_t height;
  /// Size in the `ispe` property (the coded size before transforms; 0 for a derived image
  /// without one).
  int32_t ispe_width;
  int32_t ispe_height;
  int32_t has_alpha;
  int32_t premultiplied_alpha;
  /// Bits per luma sample (8, 10 or 12; -1 when unknown).
  int32_t luma_bits;
  /// The images libheif decodes to make the primary one (a grid's tiles, an overlay's inputs,
  /// an identity transform's source, each one's alpha image, recursively), each in full at its
  /// own `ispe`: how many, the pixels of all of them (the work), and of the largest (the
  /// memory: libheif holds at most DEX_HEIF_DECODING_THREADS of them at once, and an alpha).
  int32_t input_count;
  int64_t input_pixels;
  int64_t largest_input_pixels;
  /// Length of the primary image's first `Exif` metadata block as libheif holds it, its 4-byte
  /// big-endian TIFF header offset included (ISO/IEC 23008-12 Annex A); 0 when there is none or
  /// it is longer than DEX_MAX_EXIF_BYTES.
  int32_t exif_size;
} dex_heif_header;

/// The caller's limits (DecodingLimits), which become libheif's security limits for the file.
typedef struct {
  /// Most pixels of any image (libheif's max_image_size_pixels; the primary's shown and coded
  /// sizes are checked against it too).
  uint64_t max_pixels;
  /// Longest side of the primary image (0 = none).
  uint32_t max_dimension;
  /// Most items, and most tiles of a grid (libheif's max_items and max_number_of_tiles).
  uint32_t max_items;
  /// Largest block of memory libheif may allocate for one thing: an item's data, a profile
  /// (libheif's max_memory_block_size).
  uint64_t max_memory_bytes;
} dex_heif_limits;

typedef struct dex_heif_decoder dex_heif_decoder;

dex_heif_decoder *dex_heif_decoder_create(void);
void dex_heif_decoder_destroy(dex_heif_decoder *decoder);
const char *dex_heif_decoder_message(const dex_heif_decoder *decoder);

/// 1 when the libheif in use (at compile and run time) has security limits (1.19 or later);
/// otherwise 0, with `message` (DEX_MESSAGE_CAPACITY bytes, may be NULL) saying which it is.
int32_t dex_heif_library_supported(char *message);

/// Parses the file under `limits` (libheif keeps a pointer to `data`, which must outlive the
/// decoder) and reads the primary image's header. Refuses (DEX_STATUS_TOO_LARGE) what exceeds
/// the limits, before any pixel buffer exists (the images the primary decodes from included);
/// a coded stream declaring pictures larger than its item's `ispe` is corrupt
/// (DEX_STATUS_LIBRARY_ERROR); an image the primary decodes from that is coded other than as
/// HEVC or AV1, and any libheif older than 1.19, are DEX_STATUS_UNSUPPORTED (the message says
/// which). The header is filled in as far as it was read.
int32_t dex_heif_read_header(dex_heif_decoder *decoder, const uint8_t *data, size_t size,
                             const dex_heif_limits *limits, dex_heif_header *header);

/// Reads the picture sizes the HEVC sequence parameter sets in `stream` declare: NAL units, each
/// after a 4-byte big-endian length, as libheif hands an item's coded stream to a decoder. Sets
/// the largest width and height of any of them and returns 1, or returns 0 when none is
/// readable. Written in Swift (HEVCSequenceParameterSet), so that the SPS is not parsed in C.
typedef int32_t (*dex_hevc_sps_reader)(const uint8_t *stream, size_t size, uint64_t *width,
                                       uint64_t *height);

/// Installs the reader the stream-size probe asks before libde265 sees an HEVC stream: an SPS
/// declaring more than its item's `ispe` is refused before libde265 builds tables of that size.
/// Without one, libde265's own measurement is the only check.
void dex_heif_set_hevc_sps_reader(dex_hevc_sps_reader reader);

/// Copies the primary image's `Exif` block (exif_size bytes, offset prefix included, nothing
/// parsed) into `buffer`; DEX_STATUS_INVALID_ARGUMENT when `capacity` is smaller than the block.
int32_t dex_heif_copy_exif(dex_heif_decoder *decoder, uint8_t *buffer, size_t capacity);

/// Decodes the primary image (transforms applied, high bit depths reduced to 8 bits), composites
/// alpha on (bg_r, bg_g, bg_b) and resamples to dst_width x dst_height RGB8.
int32_t dex_heif_decode(dex_heif_decoder *decoder, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b,
                        uint8_t *dst, int32_t dst_width, int32_t dst_height, size_t dst_stride);

/// What a WebP header says (VP8 / VP8L / VP8X), read without decoding.
typedef struct {
  /// The canvas size (for an animation) or the image size.
  int32_t width;
  int32_t height;
  int32_t has_alpha;
  int32_t has_animation;
  /// 1 lossy (VP8), 2 lossless (VP8L), 0 mixed / undefined (animations).
  int32_t format;
  /// Length of the EXIF chunk's payload (0 when none).
  int32_t exif_size;
} dex_webp_header;

typedef struct dex_webp_decoder dex_webp_decoder;

dex_webp_decoder *dex_webp_decoder_create(void);
void dex_webp_decoder_destroy(dex_webp_decoder *decoder);
const char *dex_webp_decoder_message(const dex_webp_decoder *decoder);

/// Reads the header of `data` (which must stay alive until the decoder is destroyed); refuses
/// (DEX_STATUS_TOO_LARGE) more than max_pixels pixels before any buffer exists.
int32_t dex_webp_read_header(dex_webp_decoder *decoder, const uint8_t *data, size_t size,
                             uint64_t max_pixels, dex_webp_header *header);
/// Copies up to `capacity` bytes of the EXIF payload (raw TIFF, an "Exif\0\0" prefix removed).
int32_t dex_webp_copy_exif(dex_webp_decoder *decoder, uint8_t *buffer, size_t capacity);

/// Decodes a still image at scaled_width x scaled_height with libwebp's own scaler (the full size
/// when they equal the header's; ignored for an animation, whose first frame is decoded at full
/// size), composites alpha on (bg_r, bg_g, bg_b) and Lanczos-resamples to dst_width x dst_height
/// RGB8 (no resampling when the scaled size is the destination size).
int32_t dex_webp_decode(dex_webp_decoder *decoder, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b,
                        int32_t scaled_width, int32_t scaled_height, uint8_t *dst,
                        int32_t dst_width, int32_t dst_height, size_t dst_stride);

/// Lanczos-3 resample of RGB8 `src` (sw x sh) into `dst` (dw x dh); dw <= sw and dh <= sh.
int32_t dex_resample_rgb(const uint8_t *src, int32_t sw, int32_t sh, size_t src_stride,
                         uint8_t *dst, int32_t dw, int32_t dh, size_t dst_stride);

/// Applies EXIF orientation 1...8 to RGB8 `src` (sw x sh, tightly packed) into `dst`, which is
/// sw x sh for 1-4 and sh x sw for 5-8 (tightly packed).
int32_t dex_orient_rgb(const uint8_t *src, int32_t sw, int32_t sh, uint8_t *dst,
                       int32_t orientation);

#ifdef __cplusplus
}
#endif

#endif  // defined(__linux__) && (defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS) || defined(__swift__))
#endif
