// HEIF / HEIC / AVIF through libheif (which reports errors as values, never longjmps or aborts).
//
// libheif 1.19 or later only: its security limits (image size, items, tiles, iloc extents per
// item, memory block size, children per box) and its reference-cycle detection guard the file's
// structure, set here from the caller's DecodingLimits. An older libheif has no such limits and
// HEIF / AVIF are refused (DEX_STATUS_UNSUPPORTED) rather than decoded unguarded. No box is read
// here by hand: what libheif cannot check itself (a coded stream larger than its item's `ispe`,
// the pixels an overlay's inputs decode to) is asked in heif_probe.c. The primary image is
// decoded with its transformations (irot, imir, clap) applied, straight to interleaved 8-bit
// RGB(A) (libheif reduces 10/12-bit samples), composited on the background and streamed through
// the resizer.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

// Compiled only on Linux with the SystemImageCodecs trait (Package.swift defines the macro then):
// elsewhere the file is empty and needs no library headers.
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>
#if LIBHEIF_HAVE_VERSION(1, 19, 0)
#include <libheif/heif_items.h>
#endif

#include "CDexImageShim.h"
#include "alpha.h"
#include "heif_probe.h"
#include "resample.h"

struct dex_heif_decoder {
  struct heif_context *context;
  struct heif_image_handle *handle;
  dex_heif_header header;
  int32_t have_header;
  /// The primary image's first Exif metadata block (0 when it has none or it is too long).
  heif_item_id exif_id;
  char message[DEX_MESSAGE_CAPACITY];
};

static pthread_once_t heif_once = PTHREAD_ONCE_INIT;

// Registers libheif's codec plugins (and the stream-size probe) once per process (heif_init is
// reference counted; the process keeps its one reference).
static void heif_initialise(void) {
  (void)heif_init(NULL);
#if LIBHEIF_HAVE_VERSION(1, 19, 0)
  dex_heif_probe_register();
#endif
}

dex_heif_decoder *dex_heif_decoder_create(void) {
  pthread_once(&heif_once, heif_initialise);
  return calloc(1, sizeof(dex_heif_decoder));
}

void dex_heif_decoder_destroy(dex_heif_decoder *d) {
  if (!d) return;
  if (d->handle) heif_image_handle_release(d->handle);
  if (d->context) heif_context_free(d->context);
  free(d);
}

const char *dex_heif_decoder_message(const dex_heif_decoder *d) { return d ? d->message : ""; }

int32_t dex_heif_library_supported(char *message) {
  const int major = heif_get_version_number_major(), minor = heif_get_version_number_minor();
#if LIBHEIF_HAVE_VERSION(1, 19, 0)
  if (major > 1 || (major == 1 && minor >= 19)) return 1;
#endif
  if (message)
    snprintf(message, DEX_MESSAGE_CAPACITY,
             "libheif %d.%d has no security limits; install 1.19 or later", major, minor);
  return 0;
}

// Maps a libheif error to a status, keeping its message.
static int32_t heif_status(dex_heif_decoder *d, struct heif_error error) {
  if (error.code == heif_error_Ok) return DEX_STATUS_OK;
  snprintf(d->message, DEX_MESSAGE_CAPACITY, "%s",
           error.message && error.message[0] ? error.message : "libheif error");
  // One line: some of libheif's messages end in a newline.
  for (char *c = d->message; *c; c++)
    if (*c == '\n' || *c == '\r') *c = c[1] ? ' ' : '\0';
  if (error.subcode == heif_suberror_Security_limit_exceeded) return DEX_STATUS_TOO_LARGE;
  if (error.subcode == heif_suberror_End_of_data) return DEX_STATUS_TRUNCATED;
  if (error.code == heif_error_Memory_allocation_error) return DEX_STATUS_OUT_OF_MEMORY;
  return DEX_STATUS_LIBRARY_ERROR;
}

#if LIBHEIF_HAVE_VERSION(1, 19, 0)

// The first `Exif` metadata block of the primary image and its length as libheif holds it (read
// while the file was parsed, under the memory-block limit); none when it is longer than
// DEX_MAX_EXIF_BYTES, so that nothing larger is ever copied out.
static heif_item_id exif_block(const struct heif_image_handle *handle, int32_t *size) {
  heif_item_id id = 0;
  *size = 0;
  if (heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) != 1) return 0;
  const size_t length = heif_image_handle_get_metadata_size(handle, id);
  if (length == 0 || length > DEX_MAX_EXIF_BYTES) return 0;
  *size = (int32_t)length;
  return id;
}

// MARK: Header

int32_t dex_heif_read_header(dex_heif_decoder *d, const uint8_t *data, size_t size,
                             const dex_heif_limits *limits, dex_heif_header *header) {
  if (!d || !data || size == 0 || !limits || !header || d->context)
    return DEX_STATUS_INVALID_ARGUMENT;
  memset(header, 0, sizeof *header);
  if (!dex_heif_library_supported(d->message)) return DEX_STATUS_UNSUPPORTED;
  d->context = heif_context_alloc();
  if (!d->context) return DEX_STATUS_OUT_OF_MEMORY;
  heif_context_set_max_decoding_threads(d->context, DEX_HEIF_DECODING_THREADS);
  // libheif's limits, every one that DecodingLimits speaks for; a 0 would disable a limit, so
  // callers' zeros become 1. The rest keep libheif's defaults (32 iloc extents an item, 100
  // children a box, 64 entities a group, a 100 MB colour profile, 256 components).
  struct heif_security_limits *security = heif_context_get_security_limits(d->context);
  security->max_items = limits->max_items ? limits->max_items : 1;
  security->max_number_of_tiles = security->max_items;
  // The image-size limit is off while libheif only parses (no pixels exist yet), so that an
  // oversized primary image is named with its size below (ImagingError.imageTooLarge), and on
  // again before anything decodes: the probe's decodes and the real one check every item's
  // `ispe` against it.
  security->max_image_size_pixels = 0;
  // While libheif parses (and while the probe below reads coded streams), no pixel plane exists:
  // every memory block is an item's data gathered from the file's own bytes, which an honest
  // file never repeats, so none exceeds the file's size. Bounding the block by it makes libheif
  // refuse repeated extents at the file's size instead of at the memory limit
  // (32-extents-over-16-MiB, HEIFReproducerTests: 310 MiB peak before, 256 MiB of them one
  // item's data gathered for a 16 MiB file). The limit is restored before pixels are decoded.
  const uint64_t memory_limit = limits->max_memory_bytes ? limits->max_memory_bytes : 1;
  const uint64_t parse_memory_limit = size < memory_limit ? (uint64_t)size : memory_limit;
  security->max_memory_block_size = parse_memory_limit;
  int32_t status =
      heif_status(d, heif_context_read_from_memory_without_copy(d->context, data, size, NULL));
  security->max_image_size_pixels = limits->max_pixels ? limits->max_pixels : 1;
  security->max_memory_block_size = memory_limit;
  if (status != DEX_STATUS_OK) return status;
  status = heif_status(d, heif_context_get_primary_image_handle(d->context, &d->handle));
  if (status != DEX_STATUS_OK) return status;
  dex_heif_header h = {0};
  h.width = heif_image_handle_get_width(d->handle);
  h.height = heif_image_handle_get_height(d->handle);
  const heif_item_id primary = heif_image_handle_get_item_id(d->handle);
  // A grid decodes to its grid description's size with the transformations applied, which
  // libheif's tiling reports; the handle's size comes from `ispe`, which libheif 1.15's own
  // encoder wrote already rotated (heic-orientation-5...8.heic: ispe 60x96 over a 96x60 grid).
  struct heif_image_tiling tiling;
  if (heif_item_get_item_type(d->context, primary) == heif_fourcc('g', 'r', 'i', 'd') &&
      heif_image_handle_get_image_tiling(d->handle, 1, &tiling).code == heif_error_Ok &&
      tiling.image_width <= INT32_MAX && tiling.image_height <= INT32_MAX) {
    h.width = (int32_t)tiling.image_width;
    h.height = (int32_t)tiling.image_height;
  }
  h.ispe_width = heif_image_handle_get_ispe_width(d->handle);
  h.ispe_height = heif_image_handle_get_ispe_height(d->handle);
  h.has_alpha = heif_image_handle_has_alpha_channel(d->handle) != 0;
  h.premultiplied_alpha = heif_image_handle_is_premultiplied_alpha(d->handle) != 0;
  h.luma_bits = heif_image_handle_get_luma_bits_per_pixel(d->handle);
  d->exif_id = exif_block(d->handle, &h.exif_size);
  // What the primary decodes from: only HEVC and AV1 images (and grids, overlays and identity
  // transforms of them) are decoded, whatever other decoders libheif has (its built-in `unci`
  // among them); their pixels are counted against the caller's limits.
  const int32_t walked = dex_heif_walk_inputs(d->context, primary, limits->max_items, &h, d->message);
  *header = h;
  d->header = h;
  if (walked != DEX_STATUS_OK) return walked;
  if (h.width <= 0 || h.height <= 0) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "HEIF primary image has no size (%dx%d)", h.width,
             h.height);
    return DEX_STATUS_LIBRARY_ERROR;
  }
  const uint64_t shown = (uint64_t)h.width * (uint64_t)h.height;
  const uint64_t coded = (uint64_t)(h.ispe_width > 0 ? h.ispe_width : 0) *
                         (uint64_t)(h.ispe_height > 0 ? h.ispe_height : 0);
  const uint32_t side = limits->max_dimension;
  // The work of decoding the inputs: a grid's tiles and an alpha image of the same size come to
  // twice the picture; more is refused (1023 distinct 100-megapixel tiles under a small grid,
  // all sharing one coded extent, each checked alone against max_pixels).
  const uint64_t work_limit = limits->max_pixels > UINT64_MAX / 2 ? UINT64_MAX : limits->max_pixels * 2;
  if ((uint64_t)h.input_pixels > work_limit) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "HEIF primary image decodes %lld pixels from %d images, more than %llu",
             (long long)h.input_pixels, h.input_count, (unsigned long long)work_limit);
    return DEX_STATUS_TOO_LARGE;
  }
  if (shown > limits->max_pixels || coded > limits->max_pixels ||
      (side > 0 && ((uint32_t)h.width > side || (uint32_t)h.height > side ||
                    (uint32_t)h.ispe_width > side || (uint32_t)h.ispe_height > side))) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "HEIF is %dx%d (coded %dx%d)", h.width, h.height,
             h.ispe_width, h.ispe_height);
    return DEX_STATUS_TOO_LARGE;
  }
  // libheif decodes the picture size its coded stream declares, not the `ispe` it checks
  // against its limits (the 8000x8000 AV1 stream declared 64x64; the infe v4 HEVC item whose
  // SPS says 30000x30000 under a 64x64 ispe wrote out of bounds in libheif 1.15): each coded
  // image the primary decodes from is asked of its own decoder first (heif_probe.c). The probe
  // reads a context of its own: libheif 1.21 and later keep the decoder plugin an item was first
  // decoded with, so probing the real context would have the real decode run the probe again.
  struct heif_context *probing = heif_context_alloc();
  if (!probing) return DEX_STATUS_OUT_OF_MEMORY;
  struct heif_security_limits *probing_security = heif_context_get_security_limits(probing);
  *probing_security = *security;
  probing_security->max_image_size_pixels = 0;  // as for the first read: sizes are checked above
  probing_security->max_memory_block_size = parse_memory_limit;  // the probe decodes no pixels
  status = heif_status(d, heif_context_read_from_memory_without_copy(probing, data, size, NULL));
  probing_security->max_image_size_pixels = security->max_image_size_pixels;
  if (status == DEX_STATUS_OK)
    status = dex_heif_probe_streams(probing, limits->max_items, d->message);
  heif_context_free(probing);
  if (status != DEX_STATUS_OK) return status;
  d->have_header = 1;
  return DEX_STATUS_OK;
}

int32_t dex_heif_copy_exif(dex_heif_decoder *d, uint8_t *buffer, size_t capacity) {
  if (!d || !d->have_header || !buffer || d->exif_id == 0) return DEX_STATUS_INVALID_ARGUMENT;
  // libheif copies the whole block: its length is asked again and must fit.
  const size_t length = heif_image_handle_get_metadata_size(d->handle, d->exif_id);
  if (length == 0 || length > DEX_MAX_EXIF_BYTES || length > capacity)
    return DEX_STATUS_INVALID_ARGUMENT;
  return heif_status(d, heif_image_handle_get_metadata(d->handle, d->exif_id, buffer));
}

#else  // libheif older than 1.19: no security limits, so nothing is decoded.

int32_t dex_heif_read_header(dex_heif_decoder *d, const uint8_t *data, size_t size,
                             const dex_heif_limits *limits, dex_heif_header *header) {
  (void)data, (void)size, (void)limits;
  if (!d || !header) return DEX_STATUS_INVALID_ARGUMENT;
  memset(header, 0, sizeof *header);
  (void)dex_heif_library_supported(d->message);
  return DEX_STATUS_UNSUPPORTED;
}

int32_t dex_heif_copy_exif(dex_heif_decoder *d, uint8_t *buffer, size_t capacity) {
  (void)d, (void)buffer, (void)capacity;
  return DEX_STATUS_UNSUPPORTED;
}

#endif

// MARK: Decode

int32_t dex_heif_decode(dex_heif_decoder *d, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b,
                        uint8_t *dst, int32_t dst_width, int32_t dst_height, size_t dst_stride) {
  if (!d || !d->have_header || !dst || dst_width <= 0 || dst_height <= 0 ||
      dst_width > d->header.width || dst_height > d->header.height ||
      dst_stride < (size_t)dst_width * 3)
    return DEX_STATUS_INVALID_ARGUMENT;
  struct heif_decoding_options *options = heif_decoding_options_alloc();
  if (!options) return DEX_STATUS_OUT_OF_MEMORY;
  options->ignore_transformations = 0;  // irot / imir / clap applied: the image comes out upright
  options->convert_hdr_to_8bit = 1;
  const int alpha = d->header.has_alpha;
  struct heif_image *image = NULL;
  int32_t status = heif_status(
      d, heif_decode_image(d->handle, &image, heif_colorspace_RGB,
                           alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                           options));
  heif_decoding_options_free(options);
  if (status != DEX_STATUS_OK) {
    if (image) heif_image_release(image);
    return status;
  }
  int stride = 0;
  const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
  const int32_t width = heif_image_get_width(image, heif_channel_interleaved);
  const int32_t height = heif_image_get_height(image, heif_channel_interleaved);
  const int bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
  const int channels = alpha ? 4 : 3;
  // The decoded image must be the size the header promised (what the caller's limits were
  // checked against); the probe makes a larger stream rare, this makes it harmless.
  if (!plane || bits != 8 || width != d->header.width || height != d->header.height ||
      stride <= 0 || (size_t)stride < (size_t)width * (size_t)channels) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "libheif returned an unexpected image (%dx%d, %d bits) for a %dx%d header", width,
             height, bits, d->header.width, d->header.height);
    heif_image_release(image);
    return DEX_STATUS_LIBRARY_ERROR;
  }
  const int premultiplied = alpha && heif_image_is_premultiplied_alpha(image);
  dex_resizer *resizer = dex_resizer_create(width, height, dst_width, dst_height, dst, dst_stride);
  uint8_t *row = alpha ? malloc((size_t)width * 3) : NULL;
  if (!resizer || (alpha && !row)) {
    dex_resizer_destroy(resizer);
    free(row);
    heif_image_release(image);
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  for (int32_t y = 0; y < height; y++) {
    const uint8_t *source = plane + (size_t)y * (size_t)stride;
    if (alpha) {
      dex_composite_rgba_row(source, row, width, premultiplied, bg_r, bg_g, bg_b);
      source = row;
    }
    dex_resizer_push_row(resizer, source);
  }
  dex_resizer_destroy(resizer);
  free(row);
  heif_image_release(image);
  return DEX_STATUS_OK;
}
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
