// libpng 1.6 behind setjmp: the error callback copies libpng's message and longjmps back into the
// shim function, which returns a status code; the warning callback only counts. Data is read from
// memory; reading past the end is reported as truncation.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

// Compiled only on Linux with the SystemImageCodecs trait (Package.swift defines the macro then):
// elsewhere the file is empty and needs no library headers.
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "CDexImageShim.h"
#include "resample.h"

struct dex_png_decoder {
  png_structp png;
  png_infop info;
  jmp_buf jump;
  char message[DEX_MESSAGE_CAPACITY];
  int32_t warnings;
  int32_t hit_eof;
  /// What libpng itself holds (its structures, buffered chunks, inflate windows), and the most
  /// it held at once: bounded by DEX_PNG_MAX_LIBRARY_BYTES.
  size_t library_bytes;
  size_t library_peak_bytes;
  const uint8_t *data;
  size_t size;
  size_t position;
  int32_t have_header;
  dex_png_header header;
  // Buffers owned across setjmp.
  uint8_t *row;
  uint8_t *rgb_row;
  uint8_t *image;
  dex_resizer *resizer;
  dex_row_pipeline *pipeline;
  /// Rows written into the current pipeline slot but not yet committed.
  int32_t pending;
};

#define DEX_THREADED_MIN_PIXELS 1000000
/// The largest ancillary chunk libpng may buffer, and how many it may keep.
#define DEX_PNG_MAX_CHUNK_BYTES (8u << 20)
#define DEX_PNG_MAX_CHUNKS 1000
/// The most libpng may hold at once. Rows and the image are the shim's own allocations, checked
/// against DecodingLimits; this bounds what the chunks a file carries can make libpng keep.
#define DEX_PNG_MAX_LIBRARY_BYTES (64u << 20)

/// Each libpng allocation carries its size in front, so that freeing it can be counted.
typedef union {
  size_t size;
  max_align_t alignment;
} dex_png_block;

static png_voidp on_png_malloc(png_structp png, png_alloc_size_t size) {
  dex_png_decoder *d = (dex_png_decoder *)png_get_mem_ptr(png);
  if (size > DEX_PNG_MAX_LIBRARY_BYTES - d->library_bytes) return NULL;  // libpng reports it
  dex_png_block *block = malloc(sizeof(dex_png_block) + size);
  if (!block) return NULL;
  block->size = size;
  d->library_bytes += size;
  if (d->library_bytes > d->library_peak_bytes) d->library_peak_bytes = d->library_bytes;
  return block + 1;
}

static void on_png_free(png_structp png, png_voidp pointer) {
  if (!pointer) return;
  dex_png_decoder *d = (dex_png_decoder *)png_get_mem_ptr(png);
  dex_png_block *block = (dex_png_block *)pointer - 1;
  d->library_bytes -= block->size;
  free(block);
}

/// Text and suggested-palette chunks, which DexImaging never reads: libpng skips them unread
/// (a compressed text chunk can inflate to megabytes, and a file may carry hundreds).
static const png_byte ignored_chunks[] = "tEXt\0zTXt\0iTXt\0sPLT";

static uint32_t read_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void on_png_error(png_structp png, png_const_charp message) {
  dex_png_decoder *d = (dex_png_decoder *)png_get_error_ptr(png);
  snprintf(d->message, DEX_MESSAGE_CAPACITY, "%s", message ? message : "libpng error");
  longjmp(d->jump, 1);
}

static void on_png_warning(png_structp png, png_const_charp message) {
  dex_png_decoder *d = (dex_png_decoder *)png_get_error_ptr(png);
  d->warnings++;
  (void)message;
}

static void on_png_read(png_structp png, png_bytep out, size_t length) {
  dex_png_decoder *d = (dex_png_decoder *)png_get_io_ptr(png);
  if (length > d->size - d->position) {
    d->hit_eof = 1;
    png_error(png, "Premature end of PNG data");
  }
  memcpy(out, d->data + d->position, length);
  d->position += length;
}

static void release_png_buffers(dex_png_decoder *d) {
  dex_resampling_release(&d->pipeline, &d->resizer);
  free(d->row);
  d->row = NULL;
  free(d->rgb_row);
  d->rgb_row = NULL;
  free(d->image);
  d->image = NULL;
}

dex_png_decoder *dex_png_decoder_create(void) {
  dex_png_decoder *d = calloc(1, sizeof(dex_png_decoder));
  if (!d) return NULL;
  d->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, d, on_png_error, on_png_warning, d,
                                    on_png_malloc, on_png_free);
  if (!d->png) {
    free(d);
    return NULL;
  }
  if (setjmp(d->jump)) {
    png_destroy_read_struct(&d->png, NULL, NULL);
    free(d);
    return NULL;
  }
  d->info = png_create_info_struct(d->png);
  if (!d->info) {
    png_destroy_read_struct(&d->png, NULL, NULL);
    free(d);
    return NULL;
  }
  return d;
}

void dex_png_decoder_destroy(dex_png_decoder *d) {
  if (!d) return;
  release_png_buffers(d);
  png_destroy_read_struct(&d->png, &d->info, NULL);
  free(d);
}

const char *dex_png_decoder_message(const dex_png_decoder *d) { return d ? d->message : ""; }

size_t dex_png_decoder_library_peak_bytes(const dex_png_decoder *d) {
  return d ? d->library_peak_bytes : 0;
}

int32_t dex_png_decoder_warning_count(const dex_png_decoder *d) { return d ? d->warnings : 0; }

int32_t dex_png_read_header(dex_png_decoder *d, const uint8_t *data, size_t size,
                            uint32_t max_dimension, uint64_t max_pixels, dex_png_header *header) {
  if (!d || !data || size == 0 || !header || d->have_header) return DEX_STATUS_INVALID_ARGUMENT;
  d->data = data;
  d->size = size;
  d->position = 0;
  if (max_dimension == 0 || max_dimension > DEX_MAX_IMAGE_SIDE) max_dimension = DEX_MAX_IMAGE_SIDE;
  // The limits are checked on the IHDR chunk itself (always first, right after the signature),
  // before libpng parses anything: its own refusal of an over-limit size does not say the size.
  if (size >= 24 && memcmp(data + 12, "IHDR", 4) == 0) {
    const uint32_t width = read_be32(data + 16), height = read_be32(data + 20);
    if (width > max_dimension || height > max_dimension ||
        (uint64_t)width * (uint64_t)height > max_pixels) {
      memset(header, 0, sizeof *header);
      header->width = width > 0x7fffffffu ? 0x7fffffff : (int32_t)width;
      header->height = height > 0x7fffffffu ? 0x7fffffff : (int32_t)height;
      snprintf(d->message, DEX_MESSAGE_CAPACITY, "PNG is %ux%u", width, height);
      return DEX_STATUS_TOO_LARGE;
    }
  }
  if (setjmp(d->jump)) return d->hit_eof ? DEX_STATUS_TRUNCATED : DEX_STATUS_LIBRARY_ERROR;
  png_set_read_fn(d->png, d, on_png_read);
  png_set_user_limits(d->png, max_dimension, max_dimension);
  // Ancillary chunks (text, ICC, eXIf...) are held in memory: bound their size and count.
  png_set_chunk_malloc_max(d->png, DEX_PNG_MAX_CHUNK_BYTES);
  png_set_chunk_cache_max(d->png, DEX_PNG_MAX_CHUNKS);
  png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks, 4);
  png_read_info(d->png, d->info);
  d->have_header = 1;
  dex_png_header h;
  memset(&h, 0, sizeof h);
  h.width = (int32_t)png_get_image_width(d->png, d->info);
  h.height = (int32_t)png_get_image_height(d->png, d->info);
  h.bit_depth = png_get_bit_depth(d->png, d->info);
  h.color_type = png_get_color_type(d->png, d->info);
  h.interlaced = png_get_interlace_type(d->png, d->info) != PNG_INTERLACE_NONE;
#ifdef PNG_eXIf_SUPPORTED
  png_bytep exif = NULL;
  png_uint_32 exif_size = 0;
  if (png_get_eXIf_1(d->png, d->info, &exif_size, &exif) && exif && exif_size > 0)
    h.exif_size = (int32_t)exif_size;
#endif
  d->header = h;
  *header = h;
  if ((uint64_t)h.width * (uint64_t)h.height > max_pixels) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "PNG is %dx%d", h.width, h.height);
    return DEX_STATUS_TOO_LARGE;
  }
  return DEX_STATUS_OK;
}

int32_t dex_png_copy_exif(dex_png_decoder *d, uint8_t *buffer, size_t capacity) {
  if (!d || !d->have_header || !buffer) return DEX_STATUS_INVALID_ARGUMENT;
#ifdef PNG_eXIf_SUPPORTED
  png_bytep exif = NULL;
  png_uint_32 exif_size = 0;
  if (setjmp(d->jump)) return DEX_STATUS_LIBRARY_ERROR;
  if (!png_get_eXIf_1(d->png, d->info, &exif_size, &exif) || !exif) return DEX_STATUS_OK;
  memcpy(buffer, exif, exif_size < capacity ? exif_size : capacity);
#endif
  return DEX_STATUS_OK;
}

static void composite(const uint8_t *src, uint8_t *dst, int32_t width, int32_t channels,
                      uint8_t br, uint8_t bg, uint8_t bb) {
  if (channels == 3) {
    memcpy(dst, src, (size_t)width * 3);
    return;
  }
  for (int32_t x = 0; x < width; x++) {
    const uint32_t a = src[x * 4 + 3], ia = 255 - a;
    dst[x * 3 + 0] = (uint8_t)((src[x * 4 + 0] * a + br * ia + 127) / 255);
    dst[x * 3 + 1] = (uint8_t)((src[x * 4 + 1] * a + bg * ia + 127) / 255);
    dst[x * 3 + 2] = (uint8_t)((src[x * 4 + 2] * a + bb * ia + 127) / 255);
  }
}

int32_t dex_png_decode(dex_png_decoder *d, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b,
                       int32_t allow_partial, uint8_t *dst, int32_t dst_width, int32_t dst_height,
                       size_t dst_stride, int32_t *partial) {
  if (!d || !d->have_header || !dst || dst_width <= 0 || dst_height <= 0 ||
      dst_width > d->header.width || dst_height > d->header.height ||
      dst_stride < (size_t)dst_width * 3 || !partial)
    return DEX_STATUS_INVALID_ARGUMENT;
  *partial = 0;
  const int32_t width = d->header.width, height = d->header.height;
  const size_t rgb_bytes = (size_t)width * 3;
  d->pending = 0;
  if (setjmp(d->jump)) {
    if (!allow_partial || !d->pipeline) {
      release_png_buffers(d);
      return d->hit_eof ? DEX_STATUS_TRUNCATED : DEX_STATUS_LIBRARY_ERROR;
    }
    // Keep what was decoded: finish the picture with mid-grey (or the partial interlaced image).
    *partial = 1;
    goto finish;
  }
  png_structp png = d->png;
  png_infop info = d->info;
  const int color_type = d->header.color_type;
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && d->header.bit_depth < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (d->header.bit_depth == 16) png_set_scale_16(png);
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
    png_set_gray_to_rgb(png);
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const int32_t channels = png_get_channels(png, info);
  if ((channels != 3 && channels != 4) || png_get_bit_depth(png, info) != 8) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "Unexpected PNG layout after transforms");
    release_png_buffers(d);
    return DEX_STATUS_LIBRARY_ERROR;
  }
  const int threaded = (dst_width != width || dst_height != height) &&
                       (uint64_t)width * (uint64_t)height >= DEX_THREADED_MIN_PIXELS;
  d->rgb_row = malloc(rgb_bytes);
  d->resizer = dex_resizer_create(width, height, dst_width, dst_height, dst, dst_stride);
  d->pipeline = d->resizer ? dex_pipeline_create(d->resizer, rgb_bytes, threaded) : NULL;
  if (passes > 1) {
    d->image = calloc((size_t)height, (size_t)width * (size_t)channels);
  } else {
    d->row = malloc((size_t)width * (size_t)channels);
  }
  if (!d->rgb_row || !d->resizer || !d->pipeline || (passes > 1 ? !d->image : !d->row)) {
    release_png_buffers(d);
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  if (passes > 1) {
    // Adam7 needs the whole image: pass p rows are combined into the full buffer.
    for (int p = 0; p < passes; p++) {
      for (int32_t y = 0; y < height; y++) {
        png_read_row(png, d->image + (size_t)y * (size_t)width * (size_t)channels, NULL);
      }
    }
  } else {
    for (int32_t y = 0; y < height; y += DEX_PIPELINE_ROWS) {
      uint8_t *slot = dex_pipeline_acquire(d->pipeline);
      const int32_t rows = height - y < DEX_PIPELINE_ROWS ? height - y : DEX_PIPELINE_ROWS;
      for (int32_t i = 0; i < rows; i++) {
        uint8_t *out = slot + rgb_bytes * (size_t)i;
        if (channels == 3) {
          png_read_row(png, out, NULL);
        } else {
          png_read_row(png, d->row, NULL);
          composite(d->row, out, width, channels, bg_r, bg_g, bg_b);
        }
        d->pending = i + 1;
      }
      d->pending = 0;
      dex_pipeline_commit(d->pipeline, rows);
    }
  }
finish:
  if (d->pending > 0) {  // rows of an interrupted batch that were complete
    dex_pipeline_commit(d->pipeline, d->pending);
    d->pending = 0;
  }
  if (d->image) {
    // Interlaced (possibly interrupted): whatever the completed passes filled in is the picture.
    const int32_t ch = png_get_channels(d->png, d->info) == 4 ? 4 : 3;
    for (int32_t y = 0; y < height; y += DEX_PIPELINE_ROWS) {
      uint8_t *slot = dex_pipeline_acquire(d->pipeline);
      const int32_t rows = height - y < DEX_PIPELINE_ROWS ? height - y : DEX_PIPELINE_ROWS;
      for (int32_t i = 0; i < rows; i++)
        composite(d->image + (size_t)(y + i) * (size_t)width * (size_t)ch,
                  slot + rgb_bytes * (size_t)i, width, ch, bg_r, bg_g, bg_b);
      dex_pipeline_commit(d->pipeline, rows);
    }
  }
  dex_pipeline_finish(d->pipeline);
  if (dex_resizer_rows_pushed(d->resizer) < height) {
    memset(d->rgb_row, 128, rgb_bytes);
    while (dex_resizer_rows_pushed(d->resizer) < height) dex_resizer_push_row(d->resizer, d->rgb_row);
  }
  release_png_buffers(d);
  return DEX_STATUS_OK;
}
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
