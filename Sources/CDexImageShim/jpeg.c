// libjpeg(-turbo) behind setjmp: error_exit longjmps back into the function that called the
// library, which returns DEX_STATUS_LIBRARY_ERROR with libjpeg's formatted message. emit_message
// only counts warnings (and notes a premature end of data), so warnings never abort or print.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

// Compiled only on Linux with the SystemImageCodecs trait (Package.swift defines the macro then):
// elsewhere the file is empty and needs no library headers.
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <jerror.h>
#include <jpeglib.h>

#include "CDexImageShim.h"
#include "resample.h"

#define DEX_BATCH_ROWS DEX_PIPELINE_ROWS
/// Below this many decoded pixels a worker thread costs more than it saves.
#define DEX_THREADED_MIN_PIXELS 1000000

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  char message[DEX_MESSAGE_CAPACITY];
  int32_t warnings;
  int32_t hit_eof;
} dex_jpeg_error;

typedef struct {
  struct jpeg_progress_mgr pub;
  int32_t too_many_scans;
} dex_jpeg_progress;

/// A whole-image coefficient array libjpeg asked for (progressive files), noted so that its
/// memory can be advised once allocated (see realize_and_advise).
typedef struct {
  jvirt_barray_ptr array;
  size_t bytes;
} dex_coefficient_array;

#define DEX_MAX_COEFFICIENT_ARRAYS 10

struct dex_jpeg_decoder {
  struct jpeg_decompress_struct cinfo;
  jvirt_barray_ptr (*library_request_virt_barray)(j_common_ptr, int, boolean, JDIMENSION,
                                                  JDIMENSION, JDIMENSION);
  void (*library_realize_virt_arrays)(j_common_ptr);
  dex_coefficient_array arrays[DEX_MAX_COEFFICIENT_ARRAYS];
  int32_t array_count;
  int32_t advises_huge_pages;
  dex_jpeg_error error;
  dex_jpeg_progress progress;
  int32_t created;
  int32_t have_header;
  dex_jpeg_header header;
  // Buffers owned across setjmp; freed in dex_jpeg_decode / destroy.
  uint8_t *scanlines;
  dex_resizer *resizer;
  dex_row_pipeline *pipeline;
};

static void on_error_exit(j_common_ptr cinfo) {
  dex_jpeg_error *err = (dex_jpeg_error *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

static void on_emit_message(j_common_ptr cinfo, int msg_level) {
  dex_jpeg_error *err = (dex_jpeg_error *)cinfo->err;
  if (msg_level < 0) {
    err->warnings++;
    err->pub.num_warnings++;
    // The data ended early: at the end of the file, or at a marker (an appended EOI, a comment)
    // where the scan's entropy-coded data should have gone on. libjpeg fills the rest with grey.
    // (Not a restart marker: one out of place in a corrupt stretch is one libjpeg recovers from.)
    if (err->pub.msg_code == JWRN_JPEG_EOF ||
        (err->pub.msg_code == JWRN_HIT_MARKER && cinfo->is_decompressor &&
         (((j_decompress_ptr)cinfo)->unread_marker < JPEG_RST0 ||
          ((j_decompress_ptr)cinfo)->unread_marker > JPEG_RST0 + 7)))
      err->hit_eof = 1;
    if (err->message[0] == 0) (*cinfo->err->format_message)(cinfo, err->message);
  }
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void on_progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  j_decompress_ptr d = (j_decompress_ptr)cinfo;
  dex_jpeg_progress *p = (dex_jpeg_progress *)cinfo->progress;
  if (d->input_scan_number > DEX_MAX_JPEG_SCANS) {
    p->too_many_scans = 1;
    dex_jpeg_error *err = (dex_jpeg_error *)cinfo->err;
    snprintf(err->message, DEX_MESSAGE_CAPACITY, "Too many progressive scans (more than %d)",
             DEX_MAX_JPEG_SCANS);
    longjmp(err->jump, 1);
  }
}

static void setup_error(dex_jpeg_error *err) {
  jpeg_std_error(&err->pub);
  err->pub.error_exit = on_error_exit;
  err->pub.emit_message = on_emit_message;
  err->pub.output_message = on_output_message;
  err->message[0] = 0;
  err->warnings = 0;
  err->hit_eof = 0;
}

// Progressive JPEGs are decoded into whole-image coefficient arrays (about 2 bytes per pixel
// and component), which libjpeg zeroes and fills on first touch: with 4 KiB pages that is one
// page fault per 4 KiB, a quarter of a 12 MP progressive decode on a typical VM. Once libjpeg
// has allocated the arrays, and before it touches them, their 2 MiB-aligned interior is advised
// for transparent huge pages (MADV_HUGEPAGE; effective where the kernel's THP mode is "madvise"
// or "always", a no-op elsewhere). The advice belongs to the address range, not to the
// allocation: when malloc served the array from its heap rather than a mapping of its own, the
// range keeps the advice after libjpeg frees it, so later allocations there may also get huge
// pages. Hosts that would rather not can turn it off (dex_jpeg_decoder_set_huge_pages).
static jvirt_barray_ptr note_virt_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero,
                                         JDIMENSION blocksperrow, JDIMENSION numrows,
                                         JDIMENSION maxaccess) {
  dex_jpeg_decoder *d = (dex_jpeg_decoder *)cinfo->client_data;
  jvirt_barray_ptr array = d->library_request_virt_barray(cinfo, pool_id, pre_zero, blocksperrow,
                                                          numrows, maxaccess);
  // libjpeg allocates an array in pieces of at most about 1e9 bytes (MAX_ALLOC_CHUNK); only an
  // array that is one piece is one contiguous range that can be advised.
  const size_t bytes = (size_t)blocksperrow * (size_t)numrows * sizeof(JBLOCK);
  if (array && pre_zero && d->advises_huge_pages && bytes < 999000000u &&
      d->array_count < DEX_MAX_COEFFICIENT_ARRAYS) {
    d->arrays[d->array_count].array = array;
    d->arrays[d->array_count].bytes = bytes;
    d->array_count++;
  }
  return array;
}

static void advise_huge_pages(void *start, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  const uintptr_t begin = ((uintptr_t)start + huge - 1) & ~(huge - 1);
  const uintptr_t end = ((uintptr_t)start + bytes) & ~(huge - 1);
  if (end > begin) (void)madvise((void *)begin, (size_t)(end - begin), MADV_HUGEPAGE);
#else
  (void)start;
  (void)bytes;
#endif
}

static void realize_and_advise(j_common_ptr cinfo) {
  dex_jpeg_decoder *d = (dex_jpeg_decoder *)cinfo->client_data;
  d->library_realize_virt_arrays(cinfo);
  for (int32_t i = 0; i < d->array_count; i++) {
    // Reading row 0 (not writable) returns the array's row pointers and zeroes only that row;
    // the rows of one array are one contiguous allocation when it is wholly in memory.
    JBLOCKARRAY rows = cinfo->mem->access_virt_barray(cinfo, d->arrays[i].array, 0, 1, FALSE);
    if (rows && rows[0]) advise_huge_pages(rows[0], d->arrays[i].bytes);
  }
  d->array_count = 0;
}

dex_jpeg_decoder *dex_jpeg_decoder_create(void) {
  dex_jpeg_decoder *d = calloc(1, sizeof(dex_jpeg_decoder));
  if (!d) return NULL;
  setup_error(&d->error);
  d->cinfo.err = &d->error.pub;
  if (setjmp(d->error.jump)) {
    free(d);
    return NULL;
  }
  jpeg_create_decompress(&d->cinfo);
  d->created = 1;
  d->cinfo.client_data = d;
  d->advises_huge_pages = 1;
  d->library_request_virt_barray = d->cinfo.mem->request_virt_barray;
  d->library_realize_virt_arrays = d->cinfo.mem->realize_virt_arrays;
  d->cinfo.mem->request_virt_barray = note_virt_barray;
  d->cinfo.mem->realize_virt_arrays = realize_and_advise;
  d->progress.pub.progress_monitor = on_progress;
  d->cinfo.progress = &d->progress.pub;
  return d;
}

static void release_buffers(dex_jpeg_decoder *d) {
  dex_resampling_release(&d->pipeline, &d->resizer);
  free(d->scanlines);
  d->scanlines = NULL;
}

void dex_jpeg_decoder_destroy(dex_jpeg_decoder *d) {
  if (!d) return;
  release_buffers(d);
  if (d->created) {
    // jpeg_destroy never calls error_exit, but keep a landing pad in case a build of the library
    // does.
    if (setjmp(d->error.jump) == 0) jpeg_destroy_decompress(&d->cinfo);
  }
  free(d);
}

void dex_jpeg_decoder_set_huge_pages(dex_jpeg_decoder *d, int32_t enabled) {
  if (d) d->advises_huge_pages = enabled ? 1 : 0;
}

void dex_jpeg_decoder_set_memory_limit(dex_jpeg_decoder *d, uint64_t max_bytes) {
  if (!d || !d->cinfo.mem) return;
  // jpeg_mem_available (jmemnobs.c) then refuses whole-image arrays beyond the cap, and with no
  // backing store libjpeg fails with JERR_NO_BACKING_STORE instead of allocating them.
  const uint64_t cap = max_bytes > (uint64_t)LONG_MAX ? (uint64_t)LONG_MAX : max_bytes;
  d->cinfo.mem->max_memory_to_use = (long)cap;
}

/// The whole-image coefficient buffer a buffered decode (progressive, or a sequential file whose
/// first scan does not hold every component) allocates: per component, its blocks rounded up to
/// whole iMCUs (jdcoefct.c), 128 bytes each. 0 for a single-scan baseline file.
static uint64_t coefficient_bytes(const struct jpeg_decompress_struct *cinfo) {
  if (!cinfo->progressive_mode && cinfo->comps_in_scan >= cinfo->num_components) return 0;
  uint64_t total = 0;
  for (int i = 0; i < cinfo->num_components; i++) {
    const jpeg_component_info *c = &cinfo->comp_info[i];
    const uint64_t h = c->h_samp_factor > 0 ? (uint64_t)c->h_samp_factor : 1;
    const uint64_t v = c->v_samp_factor > 0 ? (uint64_t)c->v_samp_factor : 1;
    const uint64_t columns = ((uint64_t)c->width_in_blocks + h - 1) / h * h;
    const uint64_t rows = ((uint64_t)c->height_in_blocks + v - 1) / v * v;
    total += columns * rows * (uint64_t)sizeof(JBLOCK);
  }
  return total;
}

const char *dex_jpeg_decoder_message(const dex_jpeg_decoder *d) { return d ? d->error.message : ""; }

int32_t dex_jpeg_decoder_warning_count(const dex_jpeg_decoder *d) { return d ? d->error.warnings : 0; }

static int32_t map_color_space(J_COLOR_SPACE cs) {
  switch (cs) {
    case JCS_GRAYSCALE: return DEX_JPEG_CS_GRAYSCALE;
    case JCS_RGB: return DEX_JPEG_CS_RGB;
    case JCS_YCbCr: return DEX_JPEG_CS_YCBCR;
    case JCS_CMYK: return DEX_JPEG_CS_CMYK;
    case JCS_YCCK: return DEX_JPEG_CS_YCCK;
    default: return DEX_JPEG_CS_UNKNOWN;
  }
}

int32_t dex_jpeg_read_header(dex_jpeg_decoder *d, const uint8_t *data, size_t size,
                             dex_jpeg_header *header) {
  if (!d || !data || size == 0 || !header || d->have_header) return DEX_STATUS_INVALID_ARGUMENT;
  if (size > (size_t)0xFFFFFFFFul) return DEX_STATUS_TOO_LARGE;
  if (setjmp(d->error.jump)) return DEX_STATUS_LIBRARY_ERROR;
  jpeg_mem_src(&d->cinfo, (const unsigned char *)data, (unsigned long)size);
  jpeg_read_header(&d->cinfo, TRUE);
  d->have_header = 1;
  dex_jpeg_header h;
  memset(&h, 0, sizeof h);
  h.width = (int32_t)d->cinfo.image_width;
  h.height = (int32_t)d->cinfo.image_height;
  h.components = d->cinfo.num_components;
  h.color_space = map_color_space(d->cinfo.jpeg_color_space);
  h.progressive = d->cinfo.progressive_mode ? 1 : 0;
  h.adobe_marker = d->cinfo.saw_Adobe_marker ? 1 : 0;
  if (d->cinfo.num_components > 0 && d->cinfo.comp_info) {
    h.h_samp = d->cinfo.comp_info[0].h_samp_factor;
    h.v_samp = d->cinfo.comp_info[0].v_samp_factor;
  }
  h.coefficient_bytes = coefficient_bytes(&d->cinfo);
  d->header = h;
  *header = h;
  return DEX_STATUS_OK;
}

static void configure(dex_jpeg_decoder *d, int32_t scale_num, int32_t fancy) {
  d->cinfo.scale_num = (unsigned int)scale_num;
  d->cinfo.scale_denom = 8;
  d->cinfo.dct_method = JDCT_ISLOW;
  d->cinfo.do_fancy_upsampling = fancy ? TRUE : FALSE;
  d->cinfo.buffered_image = FALSE;
  switch (d->cinfo.jpeg_color_space) {
    case JCS_CMYK:
    case JCS_YCCK: d->cinfo.out_color_space = JCS_CMYK; break;
    default: d->cinfo.out_color_space = JCS_RGB; break;
  }
}

int32_t dex_jpeg_scaled_size(dex_jpeg_decoder *d, int32_t scale_num, int32_t *width,
                             int32_t *height) {
  if (!d || !d->have_header || scale_num < 1 || scale_num > 16 || !width || !height)
    return DEX_STATUS_INVALID_ARGUMENT;
  if (setjmp(d->error.jump)) return DEX_STATUS_LIBRARY_ERROR;
  configure(d, scale_num, 1);
  jpeg_calc_output_dimensions(&d->cinfo);
  *width = (int32_t)d->cinfo.output_width;
  *height = (int32_t)d->cinfo.output_height;
  return DEX_STATUS_OK;
}

// CMYK as libjpeg hands it out: Adobe files store inverted values (0 = full ink).
static void cmyk_to_rgb(const uint8_t *src, uint8_t *dst, int32_t width, int32_t inverted) {
  for (int32_t x = 0; x < width; x++) {
    uint32_t c = src[x * 4 + 0], m = src[x * 4 + 1], y = src[x * 4 + 2], k = src[x * 4 + 3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    dst[x * 3 + 0] = (uint8_t)((c * k + 127) / 255);
    dst[x * 3 + 1] = (uint8_t)((m * k + 127) / 255);
    dst[x * 3 + 2] = (uint8_t)((y * k + 127) / 255);
  }
}

int32_t dex_jpeg_decode(dex_jpeg_decoder *d, int32_t scale_num, int32_t fancy_upsampling,
                        int32_t allow_partial, uint8_t *dst, int32_t dst_width,
                        int32_t dst_height, size_t dst_stride, int32_t *partial) {
  if (!d || !d->have_header || !dst || scale_num < 1 || scale_num > 16 || dst_width <= 0 ||
      dst_height <= 0 || dst_stride < (size_t)dst_width * 3 || !partial)
    return DEX_STATUS_INVALID_ARGUMENT;
  *partial = 0;
  if (setjmp(d->error.jump)) {
    release_buffers(d);
    return DEX_STATUS_LIBRARY_ERROR;
  }
  configure(d, scale_num, fancy_upsampling);
  jpeg_start_decompress(&d->cinfo);
  const int32_t ow = (int32_t)d->cinfo.output_width;
  const int32_t oh = (int32_t)d->cinfo.output_height;
  const int32_t comps = d->cinfo.output_components;
  if (dst_width > ow || dst_height > oh || (comps != 3 && comps != 4)) {
    release_buffers(d);
    jpeg_abort_decompress(&d->cinfo);
    snprintf(d->error.message, DEX_MESSAGE_CAPACITY,
             "Requested %dx%d from a %dx%d scaled decode", dst_width, dst_height, ow, oh);
    return DEX_STATUS_INVALID_ARGUMENT;
  }
  const size_t row_bytes = (size_t)ow * (size_t)comps;
  const size_t rgb_bytes = (size_t)ow * 3;
  const int resizing = dst_width != ow || dst_height != oh;
  const int threaded = resizing && (uint64_t)ow * (uint64_t)oh >= DEX_THREADED_MIN_PIXELS;
  d->scanlines = comps == 4 ? malloc(row_bytes * DEX_BATCH_ROWS) : NULL;
  d->resizer = dex_resizer_create(ow, oh, dst_width, dst_height, dst, dst_stride);
  d->pipeline = d->resizer ? dex_pipeline_create(d->resizer, rgb_bytes, threaded) : NULL;
  if ((comps == 4 && !d->scanlines) || !d->resizer || !d->pipeline) {
    release_buffers(d);
    jpeg_abort_decompress(&d->cinfo);
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  JSAMPROW rows[DEX_BATCH_ROWS];
  const int32_t inverted = d->cinfo.saw_Adobe_marker ? 1 : 0;
  while (d->cinfo.output_scanline < d->cinfo.output_height) {
    uint8_t *slot = dex_pipeline_acquire(d->pipeline);
    for (int i = 0; i < DEX_BATCH_ROWS; i++)
      rows[i] = comps == 4 ? d->scanlines + row_bytes * (size_t)i : slot + rgb_bytes * (size_t)i;
    // libjpeg hands out one row group (often 1-8 rows) per call: fill the whole slot before
    // committing it, so that the resampler thread is woken once per batch, not per row group.
    JDIMENSION got = 0;
    while (got < DEX_BATCH_ROWS && d->cinfo.output_scanline < d->cinfo.output_height) {
      JDIMENSION n = jpeg_read_scanlines(&d->cinfo, rows + got, DEX_BATCH_ROWS - got);
      if (n == 0) break;  // suspension cannot happen with a memory source; be safe anyway
      got += n;
      if (d->error.hit_eof && !allow_partial) break;
    }
    if (got == 0) break;
    if (comps == 4)
      for (JDIMENSION i = 0; i < got; i++) cmyk_to_rgb(rows[i], slot + rgb_bytes * i, ow, inverted);
    dex_pipeline_commit(d->pipeline, (int32_t)got);
    if (d->error.hit_eof && !allow_partial) break;
  }
  dex_pipeline_finish(d->pipeline);
  if (d->error.hit_eof || dex_resizer_rows_pushed(d->resizer) < oh) {
    if (!allow_partial) {
      release_buffers(d);
      jpeg_abort_decompress(&d->cinfo);
      if (d->error.message[0] == 0)
        snprintf(d->error.message, DEX_MESSAGE_CAPACITY, "Premature end of JPEG file");
      return DEX_STATUS_TRUNCATED;
    }
    *partial = 1;
    // Rows libjpeg could not produce at all are mid-grey, like libjpeg's own filler.
    uint8_t *grey = malloc(rgb_bytes);
    if (!grey) {
      release_buffers(d);
      jpeg_abort_decompress(&d->cinfo);
      return DEX_STATUS_OUT_OF_MEMORY;
    }
    memset(grey, 128, rgb_bytes);
    while (dex_resizer_rows_pushed(d->resizer) < oh) dex_resizer_push_row(d->resizer, grey);
    free(grey);
  }
  release_buffers(d);
  jpeg_abort_decompress(&d->cinfo);
  return DEX_STATUS_OK;
}

// The encoder's output, grown here rather than by libjpeg's memory destination: that one frees
// its first buffer when it grows without telling its caller, so an error after a growth (a
// failed allocation) left the caller freeing a freed buffer and leaking the live one. Here the
// one live buffer is always `buffer`, whatever happens.
typedef struct {
  struct jpeg_destination_mgr pub;
  unsigned char *buffer;
  size_t capacity;
  size_t size;
} dex_jpeg_destination;

static void destination_fail(j_compress_ptr cinfo) {
  cinfo->err->msg_code = JERR_OUT_OF_MEMORY;
  cinfo->err->msg_parm.i[0] = 10;
  cinfo->err->error_exit((j_common_ptr)cinfo);
}

static void destination_init(j_compress_ptr cinfo) {
  dex_jpeg_destination *dest = (dex_jpeg_destination *)cinfo->dest;
  dest->capacity = 64 * 1024;
  dest->buffer = malloc(dest->capacity);
  if (!dest->buffer) destination_fail(cinfo);
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = dest->capacity;
}

// Called when the buffer is full: doubles it, keeping what was written.
static boolean destination_grow(j_compress_ptr cinfo) {
  dex_jpeg_destination *dest = (dex_jpeg_destination *)cinfo->dest;
  if (dest->capacity > SIZE_MAX / 2) destination_fail(cinfo);
  const size_t capacity = dest->capacity * 2;
  unsigned char *grown = realloc(dest->buffer, capacity);
  if (!grown) destination_fail(cinfo);  // dest->buffer is still the live buffer
  dest->buffer = grown;
  dest->pub.next_output_byte = grown + dest->capacity;
  dest->pub.free_in_buffer = capacity - dest->capacity;
  dest->capacity = capacity;
  return TRUE;
}

static void destination_term(j_compress_ptr cinfo) {
  dex_jpeg_destination *dest = (dex_jpeg_destination *)cinfo->dest;
  dest->size = dest->capacity - dest->pub.free_in_buffer;
}

typedef struct {
  struct jpeg_compress_struct cinfo;
  dex_jpeg_error error;
  dex_jpeg_destination destination;
  int32_t created;
} dex_jpeg_encoder;

int32_t dex_jpeg_encode_rgb(const uint8_t *pixels, int32_t width, int32_t height, size_t stride,
                            int32_t quality, int32_t subsampling, int32_t progressive,
                            uint8_t **out_data, size_t *out_size, char *message) {
  if (message) message[0] = 0;
  if (!pixels || width <= 0 || height <= 0 || width > 65500 || height > 65500 ||
      stride < (size_t)width * 3 || quality < 1 || quality > 100 || !out_data || !out_size)
    return DEX_STATUS_INVALID_ARGUMENT;
  dex_jpeg_encoder *e = calloc(1, sizeof(dex_jpeg_encoder));
  if (!e) return DEX_STATUS_OUT_OF_MEMORY;
  setup_error(&e->error);
  e->cinfo.err = &e->error.pub;
  if (setjmp(e->error.jump)) {
    if (message) memcpy(message, e->error.message, DEX_MESSAGE_CAPACITY);
    if (e->created) jpeg_destroy_compress(&e->cinfo);
    free(e->destination.buffer);
    free(e);
    return DEX_STATUS_LIBRARY_ERROR;
  }
  jpeg_create_compress(&e->cinfo);
  e->created = 1;
  e->destination.pub.init_destination = destination_init;
  e->destination.pub.empty_output_buffer = destination_grow;
  e->destination.pub.term_destination = destination_term;
  e->cinfo.dest = &e->destination.pub;
  e->cinfo.image_width = (JDIMENSION)width;
  e->cinfo.image_height = (JDIMENSION)height;
  e->cinfo.input_components = 3;
  e->cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&e->cinfo);
  jpeg_set_quality(&e->cinfo, quality, TRUE);
  e->cinfo.dct_method = JDCT_ISLOW;
  int h = 2, v = 2;
  if (subsampling == 444) {
    h = 1;
    v = 1;
  } else if (subsampling == 422) {
    v = 1;
  }
  e->cinfo.comp_info[0].h_samp_factor = h;
  e->cinfo.comp_info[0].v_samp_factor = v;
  e->cinfo.comp_info[1].h_samp_factor = 1;
  e->cinfo.comp_info[1].v_samp_factor = 1;
  e->cinfo.comp_info[2].h_samp_factor = 1;
  e->cinfo.comp_info[2].v_samp_factor = 1;
  if (progressive) jpeg_simple_progression(&e->cinfo);
  jpeg_start_compress(&e->cinfo, TRUE);
  JSAMPROW rows[DEX_BATCH_ROWS];
  while (e->cinfo.next_scanline < e->cinfo.image_height) {
    JDIMENSION n = e->cinfo.image_height - e->cinfo.next_scanline;
    if (n > DEX_BATCH_ROWS) n = DEX_BATCH_ROWS;
    for (JDIMENSION i = 0; i < n; i++)
      rows[i] = (JSAMPROW)(pixels + (size_t)(e->cinfo.next_scanline + i) * stride);
    jpeg_write_scanlines(&e->cinfo, rows, n);
  }
  jpeg_finish_compress(&e->cinfo);
  *out_data = e->destination.buffer;
  *out_size = e->destination.size;
  jpeg_destroy_compress(&e->cinfo);
  free(e);
  return DEX_STATUS_OK;
}

void dex_free(void *pointer) { free(pointer); }
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
