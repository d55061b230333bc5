// WebP through libwebp (still images, with its scaled decoding) and libwebpdemux (the EXIF chunk,
// and an animation's first frame through WebPAnimDecoder). Neither library longjmps or aborts:
// every failure is a status code. The header (WebPGetFeatures: VP8X canvas or VP8 / VP8L frame
// size) is checked against the limits before any buffer exists; libwebp itself refuses a frame
// whose size disagrees with the canvas it claims.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

// Compiled only on Linux with the SystemImageCodecs trait (Package.swift defines the macro then):
// elsewhere the file is empty and needs no library headers.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

#include "CDexImageShim.h"
#include "alpha.h"
#include "resample.h"

struct dex_webp_decoder {
  const uint8_t *data;
  size_t size;
  int32_t have_header;
  dex_webp_header header;
  char message[DEX_MESSAGE_CAPACITY];
};

dex_webp_decoder *dex_webp_decoder_create(void) { return calloc(1, sizeof(dex_webp_decoder)); }

void dex_webp_decoder_destroy(dex_webp_decoder *d) { free(d); }

const char *dex_webp_decoder_message(const dex_webp_decoder *d) { return d ? d->message : ""; }

static int32_t webp_status(dex_webp_decoder *d, VP8StatusCode code, const char *stage) {
  static const char *const names[] = {"ok",          "out of memory",      "invalid parameter",
                                      "bitstream error", "unsupported feature", "suspended",
                                      "user abort",  "not enough data"};
  const char *name = (unsigned)code < sizeof names / sizeof names[0] ? names[code] : "error";
  snprintf(d->message, DEX_MESSAGE_CAPACITY, "libwebp %s: %s", stage, name);
  switch (code) {
    case VP8_STATUS_OK: return DEX_STATUS_OK;
    case VP8_STATUS_NOT_ENOUGH_DATA: return DEX_STATUS_TRUNCATED;
    case VP8_STATUS_OUT_OF_MEMORY: return DEX_STATUS_OUT_OF_MEMORY;
    default: return DEX_STATUS_LIBRARY_ERROR;
  }
}

/// The EXIF chunk's payload through the demuxer (NULL when there is none or the file does not
/// demux); `demux` must be deleted by the caller.
static const uint8_t *exif_payload(const dex_webp_decoder *d, WebPDemuxer **demux, size_t *size) {
  WebPData whole = {d->data, d->size};
  *demux = WebPDemux(&whole);
  *size = 0;
  if (!*demux) return NULL;
  WebPChunkIterator chunk;
  if (!WebPDemuxGetChunk(*demux, "EXIF", 1, &chunk)) return NULL;
  const uint8_t *bytes = chunk.chunk.bytes;
  size_t length = chunk.chunk.size;
  WebPDemuxReleaseChunkIterator(&chunk);
  static const uint8_t prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
  if (length >= 6 && memcmp(bytes, prefix, 6) == 0) {
    bytes += 6;
    length -= 6;
  }
  *size = length;
  return length ? bytes : NULL;
}

int32_t dex_webp_read_header(dex_webp_decoder *d, const uint8_t *data, size_t size,
                             uint64_t max_pixels, dex_webp_header *header) {
  if (!d || !data || size == 0 || !header || d->have_header) return DEX_STATUS_INVALID_ARGUMENT;
  memset(header, 0, sizeof *header);
  d->data = data;
  d->size = size;
  WebPBitstreamFeatures features;
  const int32_t status = webp_status(d, WebPGetFeatures(data, size, &features), "header");
  if (status != DEX_STATUS_OK) return status;
  dex_webp_header h;
  memset(&h, 0, sizeof h);
  h.width = features.width;
  h.height = features.height;
  h.has_alpha = features.has_alpha != 0;
  h.has_animation = features.has_animation != 0;
  h.format = features.format;
  WebPDemuxer *demux = NULL;
  size_t exif_size = 0;
  if (exif_payload(d, &demux, &exif_size)) h.exif_size = exif_size > 0x7fffffff ? 0 : (int32_t)exif_size;
  WebPDemuxDelete(demux);
  *header = h;
  d->header = h;
  if (h.width <= 0 || h.height <= 0) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "WebP has no size (%dx%d)", h.width, h.height);
    return DEX_STATUS_LIBRARY_ERROR;
  }
  if ((uint64_t)h.width * (uint64_t)h.height > max_pixels) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "WebP is %dx%d", h.width, h.height);
    return DEX_STATUS_TOO_LARGE;
  }
  d->have_header = 1;
  return DEX_STATUS_OK;
}

int32_t dex_webp_copy_exif(dex_webp_decoder *d, uint8_t *buffer, size_t capacity) {
  if (!d || !d->have_header || !buffer) return DEX_STATUS_INVALID_ARGUMENT;
  WebPDemuxer *demux = NULL;
  size_t size = 0;
  const uint8_t *payload = exif_payload(d, &demux, &size);
  if (payload) memcpy(buffer, payload, size < capacity ? size : capacity);
  WebPDemuxDelete(demux);
  return DEX_STATUS_OK;
}

/// Composites (when `channels` is 4, premultiplied RGBA) and feeds `height` rows of `pixels`
/// through a resizer into `dst`.
static int32_t resample_rows(const uint8_t *pixels, int32_t width, int32_t height, size_t stride,
                             int channels, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint8_t *dst,
                             int32_t dst_width, int32_t dst_height, size_t dst_stride) {
  dex_resizer *resizer = dex_resizer_create(width, height, dst_width, dst_height, dst, dst_stride);
  uint8_t *row = channels == 4 ? malloc((size_t)width * 3) : NULL;
  if (!resizer || (channels == 4 && !row)) {
    dex_resizer_destroy(resizer);
    free(row);
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  for (int32_t y = 0; y < height; y++) {
    const uint8_t *source = pixels + (size_t)y * stride;
    if (channels == 4) {
      dex_composite_rgba_row(source, row, width, 1, bg_r, bg_g, bg_b);
      source = row;
    }
    dex_resizer_push_row(resizer, source);
  }
  dex_resizer_destroy(resizer);
  free(row);
  return DEX_STATUS_OK;
}

/// An animation's first frame, as the animation decoder composes it on its (transparent) canvas.
static int32_t decode_first_frame(dex_webp_decoder *d, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b,
                                  uint8_t *dst, int32_t dst_width, int32_t dst_height,
                                  size_t dst_stride) {
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) return DEX_STATUS_LIBRARY_ERROR;
  options.color_mode = MODE_rgbA;
  options.use_threads = 0;
  const WebPData whole = {d->data, d->size};
  WebPAnimDecoder *decoder = WebPAnimDecoderNew(&whole, &options);
  if (!decoder) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "libwebp could not demux the animation");
    return DEX_STATUS_LIBRARY_ERROR;
  }
  WebPAnimInfo info;
  uint8_t *canvas = NULL;
  int timestamp = 0;
  int32_t status = DEX_STATUS_OK;
  if (!WebPAnimDecoderGetInfo(decoder, &info) || (int32_t)info.canvas_width != d->header.width ||
      (int32_t)info.canvas_height != d->header.height) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "WebP animation canvas differs from its header");
    status = DEX_STATUS_LIBRARY_ERROR;
  } else if (!WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) || !canvas) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "libwebp could not decode the first frame");
    status = DEX_STATUS_LIBRARY_ERROR;
  } else {
    status = resample_rows(canvas, d->header.width, d->header.height, (size_t)d->header.width * 4,
                           4, bg_r, bg_g, bg_b, dst, dst_width, dst_height, dst_stride);
  }
  WebPAnimDecoderDelete(decoder);
  return status;
}

int32_t dex_webp_decode(dex_webp_decoder *d, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b,
                        int32_t scaled_width, int32_t scaled_height, uint8_t *dst,
                        int32_t dst_width, int32_t dst_height, size_t dst_stride) {
  if (!d || !d->have_header || !dst || dst_width <= 0 || dst_height <= 0 ||
      dst_width > d->header.width || dst_height > d->header.height ||
      dst_stride < (size_t)dst_width * 3)
    return DEX_STATUS_INVALID_ARGUMENT;
  if (d->header.has_animation)
    return decode_first_frame(d, bg_r, bg_g, bg_b, dst, dst_width, dst_height, dst_stride);
  if (scaled_width < dst_width || scaled_height < dst_height || scaled_width > d->header.width ||
      scaled_height > d->header.height)
    return DEX_STATUS_INVALID_ARGUMENT;

  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return DEX_STATUS_LIBRARY_ERROR;
  int32_t status = webp_status(d, WebPGetFeatures(d->data, d->size, &config.input), "header");
  if (status != DEX_STATUS_OK) return status;
  if (config.input.width != d->header.width || config.input.height != d->header.height)
    return DEX_STATUS_INVALID_ARGUMENT;
  const int channels = d->header.has_alpha ? 4 : 3;
  if (scaled_width != d->header.width || scaled_height != d->header.height) {
    config.options.use_scaling = 1;
    config.options.scaled_width = scaled_width;
    config.options.scaled_height = scaled_height;
  }
  config.options.use_threads = 1;
  const size_t stride = (size_t)scaled_width * (size_t)channels;
  uint8_t *pixels = malloc(stride * (size_t)scaled_height);
  if (!pixels) return DEX_STATUS_OUT_OF_MEMORY;
  config.output.colorspace = channels == 4 ? MODE_rgbA : MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = pixels;
  config.output.u.RGBA.stride = (int)stride;
  config.output.u.RGBA.size = stride * (size_t)scaled_height;
  status = webp_status(d, WebPDecode(d->data, d->size, &config), "decode");
  WebPFreeDecBuffer(&config.output);  // no-op for external memory, kept for symmetry
  if (status == DEX_STATUS_OK)
    status = resample_rows(pixels, scaled_width, scaled_height, stride, channels, bg_r, bg_g, bg_b,
                           dst, dst_width, dst_height, dst_stride);
  free(pixels);
  return status;
}
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
