// Two checks libheif 1.19 cannot make. First: whether an item's coded stream declares a picture
// larger than the item's `ispe`. libheif checks `ispe` against its security limits and then hands
// the stream to libde265 or dav1d, which allocate and decode the size the stream says
// (reproducers, built in Tests/DexImagingTests/HEIFReferenceTests.swift: an 8000x8000 AV1 stream
// declared 64x64 took 471 MB; an `infe` v4 HEVC item whose SPS says 30000x30000 under a 64x64
// `ispe` wrote out of bounds in libheif 1.15 and takes gigabytes in 1.19).
//
// Nothing here reads the file's structure: libheif assembles each item's stream (its decoder
// configuration and data) and hands it to this plugin, chosen by name, exactly as it would hand
// it to the real decoder; libde265 and dav1d parse it, and their picture allocators, which run
// before any picture exists, report the size and refuse to allocate. The one walk over bytes
// here, measure_hevc, only splits the stream libheif assembled into its length-prefixed NAL
// units, bounds-checked, for libde265.
//
// One exception in order, not in language: libde265 builds its per-PPS tables from the SPS's
// size (CtbAddrRStoTS, MinTbAddrZS...: 4 bytes per 4x4 block) when the PPS arrives, before it
// asks for a picture, and reports the size to no one earlier (libde265 1.0.11 has no parameter
// for it; libheif 1.19 does not read the SPS when decoding). Reproducer:
// hevc-30000-under-64-infe-v3.heic (HEIFReproducerTests), refused by the allocator at 250 MiB
// peak. So an HEVC stream goes first to the SPS reader Swift installs (HEVCSequenceParameterSet,
// bounds-checked, reading only the SPS's sizes), and an SPS larger than the item is refused
// before libde265 sees the stream; libde265 remains the check of everything else.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

#include "CDexImageShim.h"

// Installed once by Swift (HEIFDecoding), read by every probe: atomic, no lock.
static _Atomic(dex_hevc_sps_reader) sps_reader;

void dex_heif_set_hevc_sps_reader(dex_hevc_sps_reader reader) { atomic_store(&sps_reader, reader); }

#if LIBHEIF_HAVE_VERSION(1, 19, 0)
#include <dav1d/dav1d.h>
#include <libde265/de265.h>
#include <libheif/heif_items.h>
#include <libheif/heif_plugin.h>

#include "heif_probe.h"

#define PROBE_NAME "dexkit-size-probe"

typedef struct {
  uint8_t *data;
  size_t size;
} probe_stream;

// The picture size the decoder asked to allocate (0 x 0 when it never got that far).
typedef struct {
  int64_t width, height;
} probe_size;

// The plugin sees only bytes, so the item being probed is described here. libheif 1.19 runs the
// plugin on the thread that called heif_decode_image, but 1.23 may run it on a thread of its own
// (several times per call): the description is therefore process-wide, written only while
// `probe_lock` is held (one probe at a time in the process; a probe reads parameter sets and
// stops at the first picture allocation, so this costs little), and read by the plugin during
// that call. Each measurement goes to its own decoder's allocator through the allocator's user
// pointer and is then merged into `measured_*` atomically.
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static int measuring_av1;
static unsigned largest_frame;  // pixels: dav1d refuses larger frame headers
static int64_t item_width_bound, item_height_bound;  // the largest picture the item may declare
static atomic_llong measured_width, measured_height;  // the largest picture any decoder asked for

static const char *probe_plugin_name(void) { return PROBE_NAME; }

static int probe_supports(enum heif_compression_format format) {
  return format == heif_compression_HEVC || format == heif_compression_AV1;  // lowest priority
}

static struct heif_error probe_error(const char *message) {
  return (struct heif_error){heif_error_Decoder_plugin_error, heif_suberror_Unspecified, message};
}

static struct heif_error probe_new(void **decoder) {
  *decoder = calloc(1, sizeof(probe_stream));
  return *decoder ? heif_error_success : probe_error("out of memory");
}

static void probe_free(void *decoder) {
  if (!decoder) return;
  free(((probe_stream *)decoder)->data);
  free(decoder);
}

// libheif pushes the whole stream once, already bounded by its memory-block limit.
static struct heif_error probe_push(void *decoder, const void *data, size_t size) {
  probe_stream *stream = decoder;
  if (size == 0) return heif_error_success;  // libheif pushes empty items with data == NULL
  uint8_t *grown = realloc(stream->data, stream->size + size);
  if (!grown) return probe_error("out of memory");
  memcpy(grown + stream->size, data, size);
  stream->data = grown;
  stream->size += size;
  return heif_error_success;
}

static int hevc_get_buffer(de265_decoder_context *context, struct de265_image_spec *spec,
                           struct de265_image *image, void *user) {
  (void)context, (void)image;
  *(probe_size *)user = (probe_size){spec->width, spec->height};
  return 0;  // refused: libde265 stops before allocating the picture or its metadata
}

static void hevc_release_buffer(de265_decoder_context *context, struct de265_image *image,
                                void *user) {
  (void)context, (void)image, (void)user;
}

// libheif hands HEVC over as NAL units with 4-byte big-endian lengths (its own libde265 plugin
// reads them the same way).
static void measure_hevc(const probe_stream *stream, probe_size *measured) {
  de265_decoder_context *context = de265_new_decoder();
  if (!context) return;
  // With SAO on, libde265 decodes into a buffer of its own allocator and only the output
  // picture comes from ours; libheif's plugin turns SAO off too.
  de265_set_parameter_bool(context, DE265_DECODER_PARAM_DISABLE_SAO, 1);
  struct de265_image_allocation allocation = {hevc_get_buffer, hevc_release_buffer};
  de265_set_image_allocation_functions(context, &allocation, measured);
  for (size_t at = 0; stream->size - at >= 4;) {
    const uint8_t *p = stream->data + at;
    const size_t length = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    if (length > stream->size - at - 4 || length > INT32_MAX) break;
    de265_push_NAL(context, p + 4, (int)length, 0, NULL);
    at += 4 + length;
  }
  de265_flush_data(context);
  int more = 1;
  for (int round = 0; more && measured->width == 0 && round < 1024; round++) {
    const de265_error error = de265_decode(context, &more);
    if (error != DE265_OK && error != DE265_ERROR_WAITING_FOR_INPUT_DATA) break;
  }
  de265_free_decoder(context);
}

static int av1_alloc_picture(Dav1dPicture *picture, void *cookie) {
  *(probe_size *)cookie = (probe_size){picture->p.w, picture->p.h};
  return DAV1D_ERR(ENOMEM);  // refused: dav1d stops before the picture exists
}

static void av1_release_picture(Dav1dPicture *picture, void *cookie) { (void)picture, (void)cookie; }

static void measure_av1(const probe_stream *stream, probe_size *measured) {
  Dav1dSettings settings;
  dav1d_default_settings(&settings);
  settings.n_threads = 1;
  settings.max_frame_delay = 1;
  settings.frame_size_limit = largest_frame;
  settings.allocator = (Dav1dPicAllocator){measured, av1_alloc_picture, av1_release_picture};
  Dav1dContext *context = NULL;
  if (dav1d_open(&context, &settings) != 0) return;
  Dav1dData data = {0};
  uint8_t *bytes = dav1d_data_create(&data, stream->size);
  if (bytes) {
    memcpy(bytes, stream->data, stream->size);
    for (int round = 0; measured->width == 0 && round < 1024; round++) {
      const int sent = data.sz > 0 ? dav1d_send_data(context, &data) : DAV1D_ERR(EAGAIN);
      Dav1dPicture picture = {0};
      const int got = dav1d_get_picture(context, &picture);
      if (got == 0) dav1d_picture_unref(&picture);
      if ((sent < 0 && sent != DAV1D_ERR(EAGAIN)) || (got < 0 && got != DAV1D_ERR(EAGAIN)) ||
          (data.sz == 0 && got == DAV1D_ERR(EAGAIN)))
        break;
    }
    dav1d_data_unref(&data);
  }
  dav1d_close(&context);
}

static struct heif_error probe_decode(void *decoder, struct heif_image **image) {
  (void)image;
  probe_stream *stream = decoder;
  probe_size measured = {0, 0};
  // An empty stream (libheif pushes an item without data as NULL, 0) measures nothing and is
  // refused by the caller (found by the fuzzer: heif-seeds/fuzz-empty-item-pushed-to-probe.heic).
  if (stream->size > 0 && measuring_av1) measure_av1(stream, &measured);
  if (stream->size > 0 && !measuring_av1) {
    // An SPS larger than the item is refused before libde265 builds tables of its size.
    const dex_hevc_sps_reader read_sps = atomic_load(&sps_reader);
    uint64_t width = 0, height = 0;
    if (read_sps && read_sps(stream->data, stream->size, &width, &height) &&
        (width > (uint64_t)item_width_bound || height > (uint64_t)item_height_bound))
      measured = (probe_size){width > INT64_MAX ? INT64_MAX : (int64_t)width,
                              height > INT64_MAX ? INT64_MAX : (int64_t)height};
    else
      measure_hevc(stream, &measured);
  }
  if (measured.width > 0 && measured.height > 0) {
    long long width = atomic_load(&measured_width), height = atomic_load(&measured_height);
    while (measured.width > width && !atomic_compare_exchange_weak(&measured_width, &width,
                                                                   measured.width)) {
    }
    while (measured.height > height && !atomic_compare_exchange_weak(&measured_height, &height,
                                                                     measured.height)) {
    }
  }
  return probe_error("measured");  // never an image: the real decoder decodes it later
}

#if LIBHEIF_HAVE_VERSION(1, 21, 0)
// libheif 1.21 introduced decoder plugin API 5, and libheif 1.23 (Debian 13) refuses plugins
// older than that. API 5's entry points carry more context (decoder options, per-sample user
// data, security limits) that the probe does not need: each forwards to the version-1 function.
static int probe_supports2(const struct heif_decoder_plugin_compressed_format_description *format) {
  return format ? probe_supports(format->format) : 0;
}

static struct heif_error probe_new2(void **decoder, const struct heif_decoder_plugin_options *options) {
  (void)options;
  return probe_new(decoder);
}

static struct heif_error probe_push2(void *decoder, const void *data, size_t size, uintptr_t user_data) {
  (void)user_data;
  return probe_push(decoder, data, size);
}

static struct heif_error probe_flush(void *decoder) {
  (void)decoder;
  return heif_error_success;
}

static struct heif_error probe_decode_next(
    void *decoder, struct heif_image **image, const struct heif_security_limits *limits) {
  (void)limits;
  return probe_decode(decoder, image);
}

static struct heif_error probe_decode_next2(void *decoder, struct heif_image **image,
                                            uintptr_t *user_data,
                                            const struct heif_security_limits *limits) {
  (void)limits;
  if (user_data) *user_data = 0;
  return probe_decode(decoder, image);
}
#endif

static const struct heif_decoder_plugin probe_plugin = {
#if LIBHEIF_HAVE_VERSION(1, 21, 0)
    .plugin_api_version = 5,
    .decode_next_image = probe_decode_next,
    .minimum_required_libheif_version = LIBHEIF_MAKE_VERSION(1, 21, 0),
    .does_support_format2 = probe_supports2,
    .new_decoder2 = probe_new2,
    .push_data2 = probe_push2,
    .flush_data = probe_flush,
    .decode_next_image2 = probe_decode_next2,
#else
    .plugin_api_version = 3,
#endif
    .get_plugin_name = probe_plugin_name,
    .does_support_format = probe_supports,
    .new_decoder = probe_new,
    .free_decoder = probe_free,
    .push_data = probe_push,
    .decode_image = probe_decode,
    .id_name = PROBE_NAME,
};

void dex_heif_probe_register(void) { (void)heif_register_decoder_plugin(&probe_plugin); }

int32_t dex_heif_probe_streams(struct heif_context *context, uint32_t max_items, char *message) {
  const int count = heif_context_get_number_of_items(context);
  if (count < 0 || (uint32_t)count > max_items) {
    snprintf(message, DEX_MESSAGE_CAPACITY, "HEIF has %d items, more than the limit of %u", count,
             max_items);
    return DEX_STATUS_TOO_LARGE;
  }
  heif_item_id *ids = calloc((size_t)count + 1, sizeof *ids);
  if (!ids) return DEX_STATUS_OUT_OF_MEMORY;
  const int listed = heif_context_get_list_of_item_IDs(context, ids, count);
  struct heif_decoding_options *options = heif_decoding_options_alloc();
  if (!options) {
    free(ids);
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  options->decoder_id = PROBE_NAME;
  options->ignore_transformations = 1;
  int32_t status = DEX_STATUS_OK;
  for (int i = 0; i < listed && status == DEX_STATUS_OK; i++) {
    const uint32_t type = heif_item_get_item_type(context, ids[i]);
    if (type != heif_fourcc('h', 'v', 'c', '1') && type != heif_fourcc('a', 'v', '0', '1'))
      continue;
    struct heif_image_handle *handle = NULL;
    if (heif_context_get_image_handle(context, ids[i], &handle).code != heif_error_Ok || !handle)
      continue;  // an item libheif cannot open is never decoded either
    // One 64-pixel coding block of slack: coded sizes round up to whole blocks (96x60 as 96x64).
    const int64_t bound_width = (int64_t)heif_image_handle_get_ispe_width(handle) + 64;
    const int64_t bound_height = (int64_t)heif_image_handle_get_ispe_height(handle) + 64;
    struct heif_image *image = NULL;
    const int64_t largest = bound_width > 0 && bound_height > 0 ? bound_width * bound_height : 1;
    pthread_mutex_lock(&probe_lock);
    measuring_av1 = type == heif_fourcc('a', 'v', '0', '1');
    item_width_bound = bound_width, item_height_bound = bound_height;
    largest_frame = largest > UINT32_MAX ? UINT32_MAX : (unsigned)largest;
    atomic_store(&measured_width, 0);
    atomic_store(&measured_height, 0);
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_undefined,
                                                heif_chroma_undefined, options);
    const probe_size measured = {atomic_load(&measured_width), atomic_load(&measured_height)};
    pthread_mutex_unlock(&probe_lock);
    if (image) heif_image_release(image);
    heif_image_handle_release(handle);
    if (error.subcode == heif_suberror_Security_limit_exceeded) {
      snprintf(message, DEX_MESSAGE_CAPACITY, "%s", error.message);
      status = DEX_STATUS_TOO_LARGE;
    } else if (measured.width <= 0 || measured.height <= 0) {
      snprintf(message, DEX_MESSAGE_CAPACITY,
               "HEIF item %u's coded stream does not reach a picture (%s)", ids[i],
               error.message && error.message[0] ? error.message : "no picture");
      status = DEX_STATUS_LIBRARY_ERROR;
    } else if (measured.width > bound_width || measured.height > bound_height) {
      snprintf(message, DEX_MESSAGE_CAPACITY,
               "HEIF item %u's coded data declares pictures larger than its image size (ispe): "
               "%lldx%lld for %lldx%lld",
               ids[i], (long long)measured.width, (long long)measured.height,
               (long long)bound_width - 64, (long long)bound_height - 64);
      status = DEX_STATUS_LIBRARY_ERROR;
    }
  }
  heif_decoding_options_free(options);
  free(ids);
  return status;
}

// MARK: What the primary decodes from (the second check)

static int is_derived(uint32_t type) {
  return type == heif_fourcc('g', 'r', 'i', 'd') || type == heif_fourcc('i', 'o', 'v', 'l') ||
         type == heif_fourcc('i', 'd', 'e', 'n');
}

static int allowed_type(uint32_t type) {
  return type == heif_fourcc('h', 'v', 'c', '1') || type == heif_fourcc('a', 'v', '0', '1') ||
         is_derived(type);
}

static int64_t saturating_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

// The alpha images of `handle`: its auxiliary images that are not depth, minus those that are
// neither depth nor alpha (libheif's filters have no "alpha only").
static int alpha_images(const struct heif_image_handle *handle, heif_item_id *out, int capacity) {
  const int with_alpha = (int)LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH;
  const int without_alpha =
      (int)(LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH | LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA);
  heif_item_id all[16], other[16];
  const int all_count = heif_image_handle_get_list_of_auxiliary_image_IDs(handle, with_alpha, all, 16);
  const int other_count =
      heif_image_handle_get_list_of_auxiliary_image_IDs(handle, without_alpha, other, 16);
  int found = 0;
  for (int i = 0; i < all_count && found < capacity; i++) {
    int is_other = 0;
    for (int j = 0; j < other_count; j++) is_other |= other[j] == all[i];
    if (!is_other) out[found++] = all[i];
  }
  return found;
}

int32_t dex_heif_walk_inputs(struct heif_context *context, heif_item_id primary,
                             uint32_t max_items, dex_heif_header *header, char *message) {
  const size_t budget = (size_t)max_items * 4 + 16;
  heif_item_id *stack = calloc(budget, sizeof *stack);
  if (!stack) return DEX_STATUS_OUT_OF_MEMORY;
  size_t depth = 0, visited = 0;
  int32_t status = DEX_STATUS_OK;
  int64_t total = 0, largest = 0;
  int32_t count = 0;
  stack[depth++] = primary;
  while (depth > 0 && status == DEX_STATUS_OK) {
    const heif_item_id id = stack[--depth];
    if (++visited > budget) {
      status = DEX_STATUS_TOO_LARGE;
      break;
    }
    const uint32_t type = heif_item_get_item_type(context, id);
    if (!allowed_type(type)) {
      snprintf(message, DEX_MESSAGE_CAPACITY,
               "HEIF whose item %u is coded as '%c%c%c%c' (only HEVC and AV1 images, and grids, "
               "overlays and identity transforms of them, are decoded)",
               id, (char)(type >> 24 & 0x7F), (char)(type >> 16 & 0x7F), (char)(type >> 8 & 0x7F),
               (char)(type & 0x7F));
      status = DEX_STATUS_UNSUPPORTED;
      break;
    }
    struct heif_image_handle *handle = NULL;
    if (heif_context_get_image_handle(context, id, &handle).code != heif_error_Ok || !handle)
      continue;  // an image libheif cannot open is never decoded either
    if (id != primary) {
      int64_t pixels = (int64_t)heif_image_handle_get_ispe_width(handle) *
                       (int64_t)heif_image_handle_get_ispe_height(handle);
      struct heif_image_tiling tiling;
      if (type == heif_fourcc('g', 'r', 'i', 'd') &&
          heif_image_handle_get_image_tiling(handle, 1, &tiling).code == heif_error_Ok) {
        const int64_t canvas = (int64_t)tiling.image_width * (int64_t)tiling.image_height;
        if (canvas > pixels) pixels = canvas;
      }
      if (pixels < 0) pixels = 0;
      total = saturating_add(total, pixels);
      if (pixels > largest) largest = pixels;
      count++;
    }
    heif_item_id alphas[4];
    const int alpha_count = alpha_images(handle, alphas, 4);
    heif_image_handle_release(handle);
    for (int i = 0; i < alpha_count && status == DEX_STATUS_OK; i++) {
      if (depth >= budget) status = DEX_STATUS_TOO_LARGE;
      else stack[depth++] = alphas[i];
    }
    if (!is_derived(type)) continue;
    for (int index = 0; status == DEX_STATUS_OK; index++) {
      uint32_t reference = 0;
      heif_item_id *inputs = NULL;
      const size_t references =
          heif_context_get_item_references(context, id, index, &reference, &inputs);
      if (references == 0) break;
      for (size_t i = 0; reference == heif_fourcc('d', 'i', 'm', 'g') && i < references; i++) {
        if (depth >= budget) {
          status = DEX_STATUS_TOO_LARGE;
          break;
        }
        stack[depth++] = inputs[i];
      }
      heif_release_item_references(context, &inputs);
    }
  }
  // One message for every way past the budget (too many visits, or too many queued: an alpha
  // image's or an input's).
  if (status == DEX_STATUS_TOO_LARGE)
    snprintf(message, DEX_MESSAGE_CAPACITY, "HEIF primary image decodes from more than %zu images",
             budget - 1);
  free(stack);
  header->input_count = count;
  header->input_pixels = total;
  header->largest_input_pixels = largest;
  return status;
}

#endif  // LIBHEIF_HAVE_VERSION(1, 19, 0)
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
