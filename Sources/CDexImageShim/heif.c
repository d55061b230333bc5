// HEIF / HEIC / AVIF through libheif (which reports errors as values, never longjmps or aborts).
//
// Before libheif parses anything, a bounded walk of the ISO-BMFF boxes counts the items (`iinf`)
// and derived-image references (`iref` / `dimg`, a grid's or overlay's tiles), so that a file
// whose grid claims thousands of tiles is refused before thousands of HEVC / AV1 decoders run,
// and refuses derived images that refer to themselves or each other (libheif 1.15 follows them
// until its stack overflows), second copies of the boxes it counts, item data (`iloc`) larger
// than the file or read too often by derived images, and coded streams (AV1 sequence headers,
// HEVC sequence parameter sets) that declare pictures larger than the file's `ispe` sizes
// (libheif decodes what the stream says).
// libheif's own security limits (its compiled-in box/item caps and the maximum image size set
// here) apply on top. The primary image is decoded with its transformations (irot, imir, clap)
// applied, straight to interleaved 8-bit RGB(A) (libheif reduces 10/12-bit samples), composited
// on the background and streamed through the Lanczos resizer.

// DexImaging uses this shim on Linux (and Android) only; elsewhere the target compiles empty.
#if defined(__linux__) || defined(__ANDROID__)
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

#include "CDexImageShim.h"
#include "alpha.h"
#include "resample.h"

struct dex_heif_decoder {
  struct heif_context *context;
  struct heif_image_handle *handle;
  dex_heif_header header;
  int32_t have_header;
  char message[DEX_MESSAGE_CAPACITY];
};

static pthread_once_t heif_once = PTHREAD_ONCE_INIT;

// Registers libheif's codec plugins once per process (heif_init is reference counted; the
// process keeps its one reference).
static void heif_initialise(void) { (void)heif_init(NULL); }

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

// Maps a libheif error to a status, keeping its message.
static int32_t heif_status(dex_heif_decoder *d, struct heif_error error) {
  if (error.code == heif_error_Ok) return DEX_STATUS_OK;
  snprintf(d->message, DEX_MESSAGE_CAPACITY, "%s",
           error.message && error.message[0] ? error.message : "libheif error");
  if (error.subcode == heif_suberror_Security_limit_exceeded) return DEX_STATUS_TOO_LARGE;
  if (error.subcode == heif_suberror_End_of_data) return DEX_STATUS_TRUNCATED;
  if (error.code == heif_error_Memory_allocation_error) return DEX_STATUS_OUT_OF_MEMORY;
  return DEX_STATUS_LIBRARY_ERROR;
}

// MARK: Bounded box walk

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/// The next box in [*pos, end): its type and body range. 0 at the end or on a box that does not
/// fit (a truncated file: libheif reports that one itself).
static int next_box(const uint8_t *d, size_t end, size_t *pos, uint32_t *type, size_t *body,
                    size_t *body_end) {
  if (*pos > end || end - *pos < 8) return 0;
  uint64_t size = be32(d + *pos);
  size_t header = 8;
  *type = be32(d + *pos + 4);
  if (size == 1) {
    if (end - *pos < 16) return 0;
    size = (uint64_t)be32(d + *pos + 8) << 32 | be32(d + *pos + 12);
    header = 16;
  } else if (size == 0) {
    size = end - *pos;
  }
  if (size < header || size > end - *pos) return 0;
  *body = *pos + header;
  *body_end = *pos + (size_t)size;
  *pos += (size_t)size;
  return 1;
}

/// One derived-image reference (`dimg`): a grid, overlay or identity item and one of its inputs.
typedef struct {
  uint32_t from, to;
} dimg_edge;

/// Where part of an item's data lies in the file.
typedef struct {
  uint64_t offset, length;
} item_extent;

enum { CODEC_AV1 = 1, CODEC_HEVC = 2, MAX_CODED_ITEMS = 4096 };

/// A coded image item and its codec.
typedef struct {
  uint32_t id;
  int codec;
} coded_item;

/// An `ipco` property the checks use: a codec configuration (its body after the fixed fields)
/// or an `ispe` (its size); others are kept with `kind` 0 so that indices stay right.
typedef struct {
  int kind;  // CODEC_AV1 / CODEC_HEVC for av1C / hvcC, PROPERTY_ISPE, or 0
  size_t start, end;
  uint32_t width, height;
} item_property;

/// One `ipma` association: item `item` has property `index` (1-based, in `ipco` order).
typedef struct {
  uint32_t item;
  uint32_t index;
} property_association;

enum { PROPERTY_ISPE = 3, MAX_PROPERTIES = 4096, MAX_ASSOCIATIONS = 1 << 16 };

/// What the walk found that libheif must not see: derived images that refer to themselves or to
/// each other (libheif 1.15 follows those references without end, until the stack overflows),
/// a second `iinf` / `iref` / `iprp` box (libheif reads the first, the counts here would come
/// from another), and what the item locations and coded streams are checked against.
typedef struct {
  dimg_edge *edges;
  size_t edge_count, edge_capacity;
  int duplicate_box, too_many_edges;
  /// Each item's coded data as `iloc` places it: the sum of its extents' lengths (libheif copies
  /// them into one buffer per decode, and its codec plugin copies that again).
  uint32_t *item_ids;
  uint64_t *item_bytes;
  size_t item_count;
  int unreadable_locations;
  /// A box inside `meta`, `iinf` or `iref` whose size does not fit its parent: libheif may read
  /// it otherwise than the walk (it followed a reference cycle the walk did not see).
  int malformed;
  /// Where each listed item's data lies: extents `first_extent[i] ..< first_extent[i + 1]` of
  /// `extents`, file offsets for construction method 0, offsets into the `idat` box's body for
  /// method 1 (`in_idat[i]`); method 2 (data in another item) sets `by_reference[i]`.
  size_t *first_extent;
  unsigned char *by_reference, *in_idat;
  /// The `idat` box's body.
  size_t idat_start, idat_end;
  item_extent *extents;
  size_t extent_count, extent_capacity;
  /// The coded image items (`av01`, `hvc1`) and their codec, and the codec configuration boxes
  /// (`av1C`: configuration OBUs; `hvcC`: parameter set arrays) as body ranges.
  coded_item *coded;
  size_t coded_count, coded_capacity;
  item_property *properties;
  size_t property_count, property_capacity;
  property_association *associations;
  size_t association_count, association_capacity;
  /// Set where the items, properties or their associations are too many or do not read: the
  /// coded streams cannot be checked, so the file is refused.
  int uncheckable;
} heif_walk;

/// Appends `value` to a growable array of at most `limit` elements; 0 when full or out of memory.
static int append_element(void **array, size_t *count, size_t *capacity, size_t size,
                          size_t limit, const void *value) {
  if (*count == *capacity) {
    const size_t grown = *capacity ? 2 * *capacity : 64;
    if (*count >= limit) return 0;
    void *larger = realloc(*array, (grown > limit ? limit : grown) * size);
    if (!larger) return 0;
    *array = larger;
    *capacity = grown > limit ? limit : grown;
  }
  memcpy((char *)*array + *count * size, value, size);
  (*count)++;
  return 1;
}

enum { MAX_DIMG_EDGES = 4096 };

static int by_from(const void *a, const void *b) {
  const dimg_edge *x = a, *y = b;
  return x->from < y->from ? -1 : x->from > y->from;
}

/// Whether the derived images' references contain a cycle (a derived image is resolved once each
/// of its inputs is a coded image or a resolved derived image; what never resolves is a cycle).
/// Quadratic in the references at worst, which are at most MAX_DIMG_EDGES.
static int has_cycle(dimg_edge *edges, size_t count) {
  if (count == 0) return 0;
  qsort(edges, count, sizeof *edges, by_from);
  unsigned char *resolved = calloc(count, 1);  // per edge; an item's edges share the verdict
  if (!resolved) return 1;  // refused rather than left to libheif
  for (int progress = 1; progress;) {
    progress = 0;
    for (size_t first = 0, last; first < count; first = last) {
      for (last = first; last < count && edges[last].from == edges[first].from; last++) {
      }
      if (resolved[first]) continue;
      int ready = 1;
      for (size_t e = first; e < last && ready; e++) {
        // Is the input itself a derived image, and not resolved yet?
        size_t low = 0, high = count;
        while (low < high) {
          size_t mid = low + (high - low) / 2;
          if (edges[mid].from < edges[e].to) low = mid + 1;
          else high = mid;
        }
        if (low < count && edges[low].from == edges[e].to && !resolved[low]) ready = 0;
      }
      if (ready) {
        memset(resolved + first, 1, last - first);
        progress = 1;
      }
    }
  }
  int cycle = memchr(resolved, 0, count) != NULL;
  free(resolved);
  return cycle;
}

/// Reads an unsigned big-endian field of `size` bytes (0, 2, 4 or 8) at *at; 0 when it does not
/// fit or the size is not one of those.
static int read_field(const uint8_t *d, size_t end, size_t *at, unsigned size, uint64_t *value) {
  *value = 0;
  if ((size != 0 && size != 2 && size != 4 && size != 8) || *at > end || end - *at < size)
    return 0;
  for (unsigned i = 0; i < size; i++) *value = *value << 8 | d[*at + i];
  *at += size;
  return 1;
}

/// The `iloc` box (ISO/IEC 14496-12 8.11.3, versions 0-2): each item's total extent length into
/// `w` (a length of 0 runs to the end of the file: counted as the file's size). Bounded by the
/// box's size; a box that does not read as one marks the walk.
static void read_locations(const uint8_t *d, size_t n, size_t body, size_t end, heif_walk *w) {
  if (end - body < 6 || w->item_ids) {
    w->unreadable_locations = 1;
    return;
  }
  const uint8_t version = d[body];
  const unsigned offset_size = d[body + 4] >> 4, length_size = d[body + 4] & 15;
  const unsigned base_size = d[body + 5] >> 4, index_size = version ? d[body + 5] & 15 : 0;
  size_t at = body + 6;
  uint64_t count = 0;
  // ISO allows 0, 4 or 8 bytes for the offsets and lengths; libheif 1.15 reads an index after
  // them where the standard puts it before: files with other sizes or an index are not read
  // the same by both, so they are refused.
  const int sizes_ok = (offset_size == 0 || offset_size == 4 || offset_size == 8) &&
                       (length_size == 0 || length_size == 4 || length_size == 8) &&
                       (base_size == 0 || base_size == 4 || base_size == 8) && index_size == 0;
  if (!sizes_ok || version > 2 || !read_field(d, end, &at, version < 2 ? 2 : 4, &count) ||
      count > 65536 ||
      !(w->item_ids = calloc(count ? count : 1, sizeof *w->item_ids)) ||
      !(w->item_bytes = calloc(count ? count : 1, sizeof *w->item_bytes)) ||
      !(w->first_extent = calloc(count + 1, sizeof *w->first_extent)) ||
      !(w->by_reference = calloc(count ? count : 1, 1)) ||
      !(w->in_idat = calloc(count ? count : 1, 1))) {
    w->unreadable_locations = 1;
    return;
  }
  for (uint64_t i = 0; i < count; i++) {
    uint64_t id = 0, method = 0, unused = 0, base = 0, extents = 0, total = 0;
    int ok = read_field(d, end, &at, version < 2 ? 2 : 4, &id) &&
             (version == 0 || read_field(d, end, &at, 2, &method)) &&  // construction method
             read_field(d, end, &at, 2, &unused) &&                     // data reference index
             read_field(d, end, &at, base_size, &base) && read_field(d, end, &at, 2, &extents);
    w->first_extent[i] = w->extent_count;
    w->by_reference[i] = (method & 15) > 1;
    w->in_idat[i] = (method & 15) == 1;
    for (uint64_t e = 0; ok && e < extents; e++) {
      uint64_t offset = 0, length = 0;
      ok = read_field(d, end, &at, index_size, &unused) &&
           read_field(d, end, &at, offset_size, &offset) &&
           read_field(d, end, &at, length_size, &length);
      if (length == 0) length = offset + base < n ? n - (offset + base) : n;
      total = total + length < total ? UINT64_MAX : total + length;
      if (total > n) {  // more than the file: refused below, not walked (nor stored) further
        w->item_ids[w->item_count] = (uint32_t)id;
        w->item_bytes[w->item_count++] = UINT64_MAX;
        w->first_extent[w->item_count] = w->extent_count;
        return;
      }
      const item_extent extent = {base + offset < base ? UINT64_MAX : base + offset, length};
      ok = ok && append_element((void **)&w->extents, &w->extent_count, &w->extent_capacity,
                                sizeof extent, SIZE_MAX / sizeof extent, &extent);
    }
    if (!ok) {
      w->unreadable_locations = 1;
      return;
    }
    w->item_ids[w->item_count] = (uint32_t)id;
    w->item_bytes[w->item_count++] = total;
    w->first_extent[w->item_count] = w->extent_count;
  }
}

// MARK: Coded stream sizes (AV1 sequence headers, HEVC sequence parameter sets)

/// An item's data as one stream of bytes over its extents (file offsets), for the OBU walk.
typedef struct {
  const uint8_t *d;
  size_t n;
  const heif_walk *w;
  size_t extent, end_extent;
  uint64_t at;       // offset within the current extent
  uint64_t shift;    // added to the extents' offsets (the `idat` body for construction method 1)
  uint64_t *budget;  // bytes all the walks may still read, shared (a few times the file)
} item_reader;

/// The next byte of the item's data; -1 at its end or where an extent leaves the file.
static int next_byte(item_reader *r) {
  while (r->extent < r->end_extent && r->at >= r->w->extents[r->extent].length) {
    r->extent++;
    r->at = 0;
  }
  if (r->extent >= r->end_extent || *r->budget == 0) return -1;
  const uint64_t offset = r->w->extents[r->extent].offset + r->shift;
  if (offset < r->shift || offset > r->n || r->at >= r->n - offset) return -1;
  (*r->budget)--;
  return r->d[offset + r->at++];
}

/// Moves past `count` bytes of the item's data without reading them; 0 when it ends first.
static int skip(item_reader *r, uint64_t count) {
  while (count > 0) {
    if (r->extent >= r->end_extent) return 0;
    const uint64_t left = r->w->extents[r->extent].length - r->at;
    if (count < left) {
      r->at += count;
      return 1;
    }
    count -= left;
    r->extent++;
    r->at = 0;
  }
  return 1;
}

/// Bits of a sequence header or parameter set, most significant first (AV1 spec 4.10.1 f(n),
/// HEVC u(n)); with `emulation`, an HEVC NAL unit's emulation prevention bytes (a 3 after two
/// zero bytes) are skipped.
typedef struct {
  item_reader *r;
  uint64_t left;  // bytes of the OBU or NAL unit not yet read
  int byte, bits;
  int failed;
  int emulation, zeros;
} bit_reader;

static uint32_t bits(bit_reader *b, int count) {
  uint32_t value = 0;
  for (int i = 0; i < count; i++) {
    if (b->bits == 0) {
      do {
        if (b->left == 0 || (b->byte = next_byte(b->r)) < 0) {
          b->failed = 1;
          return 0;
        }
        b->left--;
      } while (b->emulation && b->zeros >= 2 && b->byte == 3 && (b->zeros = 0, 1));
      b->zeros = b->byte == 0 ? b->zeros + 1 : 0;
      b->bits = 8;
    }
    value = value << 1 | (uint32_t)(b->byte >> --b->bits & 1);
  }
  return value;
}

/// ue(v) (HEVC 9.2); `failed` set past 31 leading zeros.
static uint32_t exp_golomb(bit_reader *b) {
  int zeros = 0;
  while (!b->failed && bits(b, 1) == 0)
    if (++zeros > 31) {
      b->failed = 1;
      return 0;
    }
  return zeros == 0 ? 0 : (uint32_t)((1ULL << zeros) - 1 + bits(b, zeros));
}

/// pic_width_in_luma_samples and pic_height_in_luma_samples of an HEVC sequence parameter set
/// (a NAL unit's payload after its 2-byte header; H.265 7.3.2.2); 0 when it does not read.
static int parameter_set_size(bit_reader *b, uint32_t *width, uint32_t *height) {
  (void)bits(b, 4);  // sps_video_parameter_set_id
  const int sub_layers = (int)bits(b, 3);  // sps_max_sub_layers_minus1
  (void)bits(b, 1);
  // profile_tier_level(1, sub_layers): the general profile and level, 88 + 8 bits
  for (int i = 0; i < 3; i++) (void)bits(b, 32);
  int profile_present[8] = {0}, level_present[8] = {0};
  for (int i = 0; i < sub_layers; i++) {
    profile_present[i] = (int)bits(b, 1);
    level_present[i] = (int)bits(b, 1);
  }
  if (sub_layers > 0)
    for (int i = sub_layers; i < 8; i++) (void)bits(b, 2);
  for (int i = 0; i < sub_layers; i++) {
    if (profile_present[i]) {
      (void)bits(b, 32);
      (void)bits(b, 32);
      (void)bits(b, 24);
    }
    if (level_present[i]) (void)bits(b, 8);
  }
  (void)exp_golomb(b);  // sps_seq_parameter_set_id
  if (exp_golomb(b) == 3) (void)bits(b, 1);  // chroma_format_idc, separate_colour_plane_flag
  *width = exp_golomb(b);
  *height = exp_golomb(b);
  return !b->failed;
}

/// Whether an HEVC NAL unit of `size` bytes from `r` (its header next) is a sequence parameter
/// set whose pictures fit `max_width` x `max_height` (or no sequence parameter set); the rest of
/// the unit is skipped.
static int nal_fits(item_reader *r, uint64_t size, uint32_t max_width, uint32_t max_height) {
  bit_reader b = {r, size, 0, 0, 0, 1, 0};
  int fits = 1;
  if (size >= 2) {
    const uint32_t header = bits(&b, 16);
    if ((header >> 9 & 0x3F) == 33) {  // SPS_NUT
      uint32_t width = 0, height = 0;
      // Coded pictures are whole coding blocks (up to 64 pixels) with a conformance window
      // cropping them to the image's size: a block's worth of slack.
      fits = parameter_set_size(&b, &width, &height) && width <= (uint64_t)max_width + 64 &&
             height <= (uint64_t)max_height + 64;
    }
  }
  return fits && skip(r, b.left);
}

/// The NAL units of an `hevc` item's data (each after a big-endian length of `length_size`
/// bytes) all fit.
static int nal_units_fit(item_reader *r, int length_size, uint32_t max_width,
                         uint32_t max_height) {
  for (int first; (first = next_byte(r)) >= 0;) {
    uint64_t size = (uint64_t)first;
    for (int i = 1; i < length_size; i++) {
      const int part = next_byte(r);
      if (part < 0) return 0;
      size = size << 8 | (uint64_t)part;
    }
    if (!nal_fits(r, size, max_width, max_height)) return 0;
  }
  return 1;
}

/// The parameter set arrays of an `hvcC` body (after its 22 fixed bytes: the array count, then
/// per array a type byte, a count and length-prefixed NAL units) all fit.
static int configuration_fits(item_reader *r, uint32_t max_width, uint32_t max_height) {
  const int arrays = next_byte(r);
  if (arrays < 0) return 0;
  for (int a = 0; a < arrays; a++) {
    const int type = next_byte(r), high = next_byte(r), low = next_byte(r);
    if (type < 0 || high < 0 || low < 0) return 0;
    for (int u = 0; u < (high << 8 | low); u++) {
      const int size_high = next_byte(r), size_low = next_byte(r);
      if (size_high < 0 || size_low < 0) return 0;
      if (!nal_fits(r, (uint64_t)(size_high << 8 | size_low), max_width, max_height)) return 0;
    }
  }
  return 1;
}

/// uvlc() (AV1 spec 4.10.3), only to be skipped.
static void skip_uvlc(bit_reader *b) {
  int zeros = 0;
  while (!b->failed && bits(b, 1) == 0)
    if (++zeros >= 32) return;
  if (zeros < 32) (void)bits(b, zeros);
}

/// max_frame_width and max_frame_height of a sequence header OBU's payload (AV1 spec 5.5.1);
/// 0 when the payload does not read as one.
static int sequence_size(bit_reader *b, uint32_t *width, uint32_t *height) {
  (void)bits(b, 3);  // seq_profile
  (void)bits(b, 1);  // still_picture
  if (bits(b, 1)) {  // reduced_still_picture_header
    (void)bits(b, 5);
  } else {
    int decoder_model = 0, buffer_delay_length = 0;
    if (bits(b, 1)) {  // timing_info_present_flag
      (void)bits(b, 32);
      (void)bits(b, 32);
      if (bits(b, 1)) skip_uvlc(b);  // equal_picture_interval
      if ((decoder_model = (int)bits(b, 1))) {
        buffer_delay_length = (int)bits(b, 5) + 1;
        (void)bits(b, 32);
        (void)bits(b, 10);
      }
    }
    const int initial_display_delay = (int)bits(b, 1);
    const int points = (int)bits(b, 5) + 1;
    for (int i = 0; i < points && !b->failed; i++) {
      (void)bits(b, 12);
      if (bits(b, 5) > 7) (void)bits(b, 1);
      if (decoder_model && bits(b, 1)) {
        (void)bits(b, buffer_delay_length);
        (void)bits(b, buffer_delay_length);
        (void)bits(b, 1);
      }
      if (initial_display_delay && bits(b, 1)) (void)bits(b, 4);
    }
  }
  const int width_bits = (int)bits(b, 4) + 1, height_bits = (int)bits(b, 4) + 1;
  *width = bits(b, width_bits) + 1;
  *height = bits(b, height_bits) + 1;
  return !b->failed;
}

/// Walks the OBUs of `r` (AV1 spec 5.3) and checks every sequence header's largest frame
/// (`max_frame_width` and `_height`) against `max_width` x `max_height`: dav1d decodes frames of
/// the stream's size whatever `ispe` says (64 x 64 declared over an 8000 x 8000 stream took
/// 471 MB). 0 when one is larger or the OBUs do not read. An OBU without a size field runs to
/// the end of the data (as the last of a sample may). Not caught: a frame header that overrides
/// its size beyond `max_frame_width` (dav1d does not compare them; frame headers are not read).
static int sequences_fit(item_reader *r, uint32_t max_width, uint32_t max_height) {
  for (int byte; (byte = next_byte(r)) >= 0;) {
    const int type = byte >> 3 & 15, extension = byte >> 2 & 1, has_size = byte >> 1 & 1;
    if (byte & 0x80) return 0;
    if (extension && next_byte(r) < 0) return 0;
    uint64_t size = UINT64_MAX;  // without a size field: the rest
    if (has_size) {
      size = 0;
      for (int i = 0;; i++) {  // leb128
        const int part = next_byte(r);
        if (part < 0 || i == 8) return 0;
        size |= (uint64_t)(part & 0x7F) << (7 * i);
        if (!(part & 0x80)) break;
      }
    }
    bit_reader b = {r, size, 0, 0, 0, 0, 0};
    if (type == 1) {  // OBU_SEQUENCE_HEADER
      uint32_t width = 0, height = 0;
      if (!sequence_size(&b, &width, &height) || width > max_width || height > max_height)
        return 0;
    }
    if (!has_size) return 1;
    if (!skip(r, b.left)) return 0;
  }
  return 1;
}

/// Where `iloc` lists item `id` first (libheif uses that entry); `item_count` when it does not.
static size_t location_of(const heif_walk *w, uint32_t id) {
  size_t i = 0;
  while (i < w->item_count && w->item_ids[i] != id) i++;
  return i;
}

/// Item `id`'s first property of `kind` (its `ipma` associations, in order); NULL when none.
static const item_property *property_of(const heif_walk *w, uint32_t id, int kind) {
  for (size_t a = 0; a < w->association_count; a++) {
    const property_association *link = &w->associations[a];
    if (link->item != id || link->index == 0 || link->index > w->property_count) continue;
    const item_property *property = &w->properties[link->index - 1];
    if (property->kind == kind) return property;
  }
  return NULL;
}

/// Whether every AV1 sequence header and HEVC sequence parameter set the decoders will see for
/// each coded item (its own `av1C` / `hvcC` and its data) stays within that item's own `ispe`:
/// the decoders make pictures of the stream's size whatever `ispe` says (64 x 64 declared over
/// an 8000 x 8000 AV1 stream took 471 MB). The walks read at most a few times the file's size
/// in all, and skip what they do not read.
static int coded_sizes_fit(const uint8_t *d, size_t n, const heif_walk *w) {
  if (w->coded_count == 0) return 1;
  if (w->uncheckable) return 0;
  uint64_t budget = 4 * (uint64_t)n + (1 << 16);
  for (size_t c = 0; c < w->coded_count; c++) {
    const coded_item *coded = &w->coded[c];
    const item_property *ispe = property_of(w, coded->id, PROPERTY_ISPE);
    if (!ispe) return 0;  // MIAF requires one; libheif would not know the size either
    const item_property *config = property_of(w, coded->id, coded->codec);
    if (config) {
      heif_walk box = {0};
      item_extent extent = {config->start, config->end - config->start};
      box.extents = &extent;
      item_reader r = {d, n, &box, 0, 1, 0, 0, &budget};
      if (coded->codec == CODEC_AV1 ? !sequences_fit(&r, ispe->width, ispe->height)
                                    : !configuration_fits(&r, ispe->width, ispe->height))
        return 0;
    }
    const size_t i = location_of(w, coded->id);
    if (i == w->item_count) continue;  // no data: libheif refuses the item itself
    if (w->by_reference[i] || (w->in_idat[i] && w->idat_end == 0))
      return 0;  // coded data in another item, or an `idat` that is not there: not walked
    item_reader r = {d, n, w, w->first_extent[i], w->first_extent[i + 1], 0,
                     w->in_idat[i] ? w->idat_start : 0, &budget};
    // hvcC's lengthSizeMinusOne is in the last of its 22 fixed bytes (just before `start`).
    const int length_size = config ? (d[config->start - 1] & 3) + 1 : 4;
    if (coded->codec == CODEC_AV1 ? !sequences_fit(&r, ispe->width, ispe->height)
                                  : !nal_units_fit(&r, length_size, ispe->width, ispe->height))
      return 0;
  }
  return 1;
}


/// Whether a walk of boxes stopped at `pos` reached `end`: what is left is too short for a box
/// header (padding), not a box whose size does not fit, which libheif may read otherwise.
static int walked_to_end(size_t pos, size_t end) { return pos >= end || end - pos < 8; }

/// Counts the items and derived-image references of the top-level `meta` box, collects the
/// references into `w` and notes an AVIF brand. Every read is bounds-checked; each box is at
/// least 8 bytes, so the walk is linear.
static void walk_boxes(const uint8_t *d, size_t n, dex_heif_header *h, heif_walk *w) {
  size_t pos = 0, body, body_end;
  uint32_t type;
  int seen_iinf = 0, seen_iref = 0, seen_iprp = 0;
  while (next_box(d, n, &pos, &type, &body, &body_end)) {
    if (type == FOURCC('f', 't', 'y', 'p')) {
      for (size_t b = body; b + 4 <= body_end; b += 4) {
        if (b == body + 4) continue;  // minor_version
        const uint32_t brand = be32(d + b);
        if (brand == FOURCC('a', 'v', 'i', 'f') || brand == FOURCC('a', 'v', 'i', 's'))
          h->is_avif = 1;
      }
      continue;
    }
    if (type != FOURCC('m', 'e', 't', 'a') || body_end - body < 4) continue;
    size_t child = body + 4, cbody, cend;  // FullBox: version + flags
    uint32_t ctype;
    while (next_box(d, body_end, &child, &ctype, &cbody, &cend)) {
      if (cend - cbody < 4) continue;
      const uint8_t version = d[cbody];  // for the FullBoxes (iinf, iref)
      if ((ctype == FOURCC('i', 'i', 'n', 'f') && seen_iinf++) ||
          (ctype == FOURCC('i', 'r', 'e', 'f') && seen_iref++) ||
          (ctype == FOURCC('i', 'p', 'r', 'p') && seen_iprp++)) {
        w->duplicate_box = 1;
        continue;
      }
      if (ctype == FOURCC('i', 'i', 'n', 'f')) {
        uint64_t count = 0;
        if (version == 0 && cend - cbody >= 6) count = be16(d + cbody + 4);
        if (version != 0 && cend - cbody >= 8) count = be32(d + cbody + 4);
        h->item_count = count > INT32_MAX ? INT32_MAX : (int32_t)count;
        // infe (FullBox, version 2 or 3): item_ID (16 or 32 bits), protection index, item_type.
        size_t entry = cbody + (version == 0 ? 6 : 8), ebody, eend;
        uint32_t etype;
        while (next_box(d, cend, &entry, &etype, &ebody, &eend)) {
          if (etype != FOURCC('i', 'n', 'f', 'e') || eend - ebody < 4) continue;
          const uint8_t infe_version = d[ebody];
          const size_t type_at = ebody + 4 + (infe_version == 3 ? 4 : 2) + 2;
          if (infe_version < 2 || type_at > eend || eend - type_at < 4) continue;
          const uint32_t item_type = be32(d + type_at);
          if (item_type == FOURCC('i', 'o', 'v', 'l')) h->has_overlay = 1;
          const int codec = item_type == FOURCC('a', 'v', '0', '1')   ? CODEC_AV1
                            : item_type == FOURCC('h', 'v', 'c', '1') ? CODEC_HEVC
                                                                      : 0;
          const coded_item coded = {
              infe_version == 3 ? be32(d + ebody + 4) : be16(d + ebody + 4), codec};
          if (codec && !append_element((void **)&w->coded, &w->coded_count, &w->coded_capacity,
                                       sizeof coded, MAX_CODED_ITEMS, &coded))
            w->uncheckable = 1;
        }
        if (!walked_to_end(entry, cend)) w->malformed = 1;
      } else if (ctype == FOURCC('i', 'd', 'a', 't') && w->idat_end == 0) {
        w->idat_start = cbody;
        w->idat_end = cend;
      } else if (ctype == FOURCC('i', 'l', 'o', 'c')) {
        read_locations(d, n, cbody, cend, w);
      } else if (ctype == FOURCC('i', 'p', 'r', 'p')) {
        // iprp > ipco: the properties, in order (ipma names them by index), with the largest
        // `ispe` (FullBox: width, height) also noted in the header; iprp > ipma: which item has
        // which.
        size_t prop = cbody, pbody, pend;
        uint32_t ptype;
        while (next_box(d, cend, &prop, &ptype, &pbody, &pend)) {
          if (ptype == FOURCC('i', 'p', 'm', 'a') && pend - pbody >= 8) {
            const uint8_t ipma_version = d[pbody], large_index = d[pbody + 3] & 1;
            size_t at = pbody + 4;
            uint64_t entries = 0;
            read_field(d, pend, &at, 4, &entries);
            for (uint64_t e = 0; e < entries; e++) {
              uint64_t item = 0, links = 0;
              if (!read_field(d, pend, &at, ipma_version < 1 ? 2 : 4, &item) || at >= pend) {
                w->uncheckable = 1;  // does not read: the checks cannot be made
                break;
              }
              links = d[at++];
              for (uint64_t l = 0; l < links; l++) {
                uint64_t index = 0;
                if (large_index ? !read_field(d, pend, &at, 2, &index) : at >= pend) {
                  w->uncheckable = 1;
                  break;
                }
                if (!large_index) index = d[at++];
                property_association link = {(uint32_t)item,
                                             (uint32_t)(index & (large_index ? 0x7FFF : 0x7F))};
                if (!append_element((void **)&w->associations, &w->association_count,
                                    &w->association_capacity, sizeof link, MAX_ASSOCIATIONS,
                                    &link))
                  w->uncheckable = 1;
              }
            }
            continue;
          }
          if (ptype != FOURCC('i', 'p', 'c', 'o')) continue;
          size_t item = pbody, ibody, iend;
          uint32_t itype;
          while (next_box(d, pend, &item, &itype, &ibody, &iend)) {
            item_property property = {0};
            const int av1 = itype == FOURCC('a', 'v', '1', 'C') && iend - ibody >= 4;
            const int hevc = itype == FOURCC('h', 'v', 'c', 'C') && iend - ibody >= 22;
            if (av1 || hevc)  // after av1C's 4 and hvcC's 22 fixed bytes
              property = (item_property){av1 ? CODEC_AV1 : CODEC_HEVC, ibody + (av1 ? 4 : 22), iend,
                                         0, 0};
            if (itype == FOURCC('i', 's', 'p', 'e') && iend - ibody >= 12) {
              property = (item_property){PROPERTY_ISPE, 0, 0, be32(d + ibody + 4),
                                         be32(d + ibody + 8)};
              const uint64_t width = property.width, hgt = property.height;
              if (width * hgt > (uint64_t)(uint32_t)h->ispe_width * (uint32_t)h->ispe_height) {
                h->ispe_width = width > INT32_MAX ? INT32_MAX : (int32_t)width;
                h->ispe_height = hgt > INT32_MAX ? INT32_MAX : (int32_t)hgt;
              }
            }
            if (!append_element((void **)&w->properties, &w->property_count,
                                &w->property_capacity, sizeof property, MAX_PROPERTIES, &property))
              w->uncheckable = 1;
          }
        }
      } else if (ctype == FOURCC('i', 'r', 'e', 'f')) {
        const size_t id_bytes = version == 0 ? 2 : 4;
        size_t ref = cbody + 4, rbody, rend;
        uint32_t rtype;
        uint64_t total = 0;
        while (next_box(d, cend, &ref, &rtype, &rbody, &rend)) {
          if (rtype != FOURCC('d', 'i', 'm', 'g') || rend - rbody < id_bytes + 2) continue;
          const uint32_t references = be16(d + rbody + id_bytes);
          total += references;
          const uint32_t from = id_bytes == 2 ? be16(d + rbody) : be32(d + rbody);
          for (uint32_t r = 0; r < references; r++) {
            const size_t at = rbody + id_bytes + 2 + (size_t)r * id_bytes;
            if (at > rend || rend - at < id_bytes) break;
            const dimg_edge edge = {from, id_bytes == 2 ? be16(d + at) : be32(d + at)};
            if (!append_element((void **)&w->edges, &w->edge_count, &w->edge_capacity,
                                sizeof edge, MAX_DIMG_EDGES, &edge)) {
              w->too_many_edges = 1;
              break;
            }
          }
        }
        if (!walked_to_end(ref, cend)) w->malformed = 1;
        h->derived_references = total > INT32_MAX ? INT32_MAX : (int32_t)total;
      }
    }
    if (!walked_to_end(child, body_end)) w->malformed = 1;
    break;  // one meta box at the top level
  }
  if (h->has_overlay) {
    const uint64_t largest = (uint64_t)(uint32_t)h->ispe_width * (uint32_t)h->ispe_height;
    const uint64_t references = (uint64_t)(uint32_t)h->derived_references;
    h->overlay_input_pixels = largest != 0 && references > (uint64_t)INT64_MAX / largest
                                  ? INT64_MAX
                                  : (int64_t)(references * largest);
  }
}

// MARK: Header

int32_t dex_heif_read_header(dex_heif_decoder *d, const uint8_t *data, size_t size,
                             uint32_t max_dimension, uint64_t max_pixels, int32_t max_items,
                             dex_heif_header *header) {
  if (!d || !data || size == 0 || !header || d->context) return DEX_STATUS_INVALID_ARGUMENT;
  memset(header, 0, sizeof *header);
  dex_heif_header h;
  memset(&h, 0, sizeof h);
  heif_walk walk = {0};
  walk_boxes(data, size, &h, &walk);
  const int cycle = !walk.too_many_edges && has_cycle(walk.edges, walk.edge_count);
  // Coded data beyond the file's size (extents that cover the same bytes again and again), or
  // derived images whose inputs add up to more than a bounded multiple of it: libheif copies an
  // item's data per decode (32 extents over 16 MiB took 1.1 GB; a grid of 1 024 references to
  // such an item ran for minutes).
  uint64_t largest_item = 0, referenced = 0;
  for (size_t i = 0; i < walk.item_count; i++)
    if (walk.item_bytes[i] > largest_item) largest_item = walk.item_bytes[i];
  for (size_t e = 0; e < walk.edge_count; e++) {
    const size_t i = location_of(&walk, walk.edges[e].to);
    const uint64_t bytes = i < walk.item_count ? walk.item_bytes[i] : 0;
    referenced = referenced + bytes < referenced ? UINT64_MAX : referenced + bytes;
  }
  const uint64_t referenced_limit = 4 * (uint64_t)size > ((uint64_t)256 << 20) ? 4 * (uint64_t)size
                                                                               : (uint64_t)256 << 20;
  const int unreadable_locations = walk.unreadable_locations;
  // Walked only where the cheaper checks pass (the file is refused otherwise).
  const int sizes_fit = unreadable_locations || largest_item > size ||
                        referenced > referenced_limit || coded_sizes_fit(data, size, &walk);
  free(walk.edges);
  free(walk.item_ids);
  free(walk.item_bytes);
  free(walk.first_extent);
  free(walk.by_reference);
  free(walk.in_idat);
  free(walk.extents);
  free(walk.coded);
  free(walk.properties);
  free(walk.associations);
  *header = h;
  if (walk.duplicate_box || walk.malformed) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "%s",
             walk.malformed ? "HEIF has a box that does not fit inside its parent"
                            : "HEIF has two item information, reference or property boxes");
    return DEX_STATUS_LIBRARY_ERROR;
  }
  if (max_items > 0 && (h.item_count > max_items || h.derived_references > max_items)) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "HEIF has %d items and %d derived-image references, more than the limit of %d",
             h.item_count, h.derived_references, max_items);
    return DEX_STATUS_TOO_LARGE;
  }
  if (walk.too_many_edges) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "HEIF has over %d derived-image references", MAX_DIMG_EDGES);
    return DEX_STATUS_TOO_LARGE;
  }
  if (cycle) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "HEIF's derived images refer to themselves or to each other");
    return DEX_STATUS_LIBRARY_ERROR;
  }
  if (unreadable_locations) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "HEIF's item locations do not read as one box");
    return DEX_STATUS_LIBRARY_ERROR;
  }
  if (largest_item > size) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "HEIF places more coded data in one item than its %zu-byte file holds", size);
    return DEX_STATUS_TOO_LARGE;
  }
  if (!sizes_fit) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "HEIF's coded data declares pictures larger than its image sizes (ispe), or does not "
             "read");
    return DEX_STATUS_LIBRARY_ERROR;
  }
  if (referenced > referenced_limit) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY,
             "HEIF's derived images read %llu bytes of coded data, more than the limit of %llu",
             (unsigned long long)referenced, (unsigned long long)referenced_limit);
    return DEX_STATUS_TOO_LARGE;
  }
  if ((uint64_t)(uint32_t)h.ispe_width * (uint32_t)h.ispe_height > max_pixels ||
      (max_dimension > 0 &&
       ((uint32_t)h.ispe_width > max_dimension || (uint32_t)h.ispe_height > max_dimension))) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "HEIF declares a %dx%d image", h.ispe_width,
             h.ispe_height);
    return DEX_STATUS_TOO_LARGE;
  }
  d->context = heif_context_alloc();
  if (!d->context) return DEX_STATUS_OUT_OF_MEMORY;
  if (max_dimension > 0)
    heif_context_set_maximum_image_size_limit(
        d->context, max_dimension > (uint32_t)INT_MAX ? INT_MAX : (int)max_dimension);
  int32_t status =
      heif_status(d, heif_context_read_from_memory_without_copy(d->context, data, size, NULL));
  if (status != DEX_STATUS_OK) return status;
  status = heif_status(d, heif_context_get_primary_image_handle(d->context, &d->handle));
  if (status != DEX_STATUS_OK) return status;
  h.width = heif_image_handle_get_width(d->handle);
  h.height = heif_image_handle_get_height(d->handle);
  if (heif_image_handle_get_ispe_width(d->handle) > 0) {
    h.ispe_width = heif_image_handle_get_ispe_width(d->handle);
    h.ispe_height = heif_image_handle_get_ispe_height(d->handle);
  }
  h.has_alpha = heif_image_handle_has_alpha_channel(d->handle) != 0;
  h.premultiplied_alpha = heif_image_handle_is_premultiplied_alpha(d->handle) != 0;
  h.luma_bits = heif_image_handle_get_luma_bits_per_pixel(d->handle);
  *header = h;
  d->header = h;
  if (h.width <= 0 || h.height <= 0) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "HEIF primary image has no size (%dx%d)", h.width,
             h.height);
    return DEX_STATUS_LIBRARY_ERROR;
  }
  const uint64_t shown = (uint64_t)h.width * (uint64_t)h.height;
  const uint64_t coded = (uint64_t)(h.ispe_width > 0 ? h.ispe_width : 0) *
                         (uint64_t)(h.ispe_height > 0 ? h.ispe_height : 0);
  if (shown > max_pixels || coded > max_pixels ||
      (max_dimension > 0 && ((uint32_t)h.width > max_dimension ||
                             (uint32_t)h.height > max_dimension))) {
    snprintf(d->message, DEX_MESSAGE_CAPACITY, "HEIF is %dx%d (coded %dx%d)", h.width, h.height,
             h.ispe_width, h.ispe_height);
    return DEX_STATUS_TOO_LARGE;
  }
  d->have_header = 1;
  return DEX_STATUS_OK;
}

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
  if (!plane || bits != 8 || width < dst_width || height < dst_height || stride <= 0 ||
      (size_t)stride < (size_t)width * (size_t)channels) {
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

#endif  // defined(__linux__) || defined(__ANDROID__)
