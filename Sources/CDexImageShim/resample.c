// Lanczos-3 separable resampler for RGB8, streaming rows.
//
// Why C and not Swift: this loop is where the time goes after a DCT-scaled decode, and it needs
// SSE2 pmaddwd (int16 x int16 pairs summed into int32), which Swift's SIMD types do not expose;
// the scalar fallback is used on other architectures. Coefficients are 14-bit fixed point.
//
// Rows are pushed as the decoder produces them into a ring of (taps + 2) source rows; every output
// row is emitted as soon as its vertical window is complete: first the vertical pass over the
// full-width window (two rows per pmaddwd), then the horizontal pass on that single row (two taps
// per pmaddwd). Doing the vertical pass first means the costlier horizontal pass only runs on
// output rows. Memory is O(taps x source width), independent of the source height.
//
// An axis reduced by more than DEX_MAX_FILTER_SCALE is first box-averaged by an integer factor
// (streaming, as rows arrive), so that the filter never reduces by more than that: its taps,
// coefficient tables and ring of rows are then bounded by the output size, whatever the source.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

// Compiled only on Linux with the SystemImageCodecs trait (Package.swift defines the macro then):
// elsewhere the file is empty and needs no library headers.
#include "resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define VERTICAL_BITS 14
/// The largest reduction, per axis, that the Lanczos filter does by itself (at most 6 * 16 + 1
/// taps); beyond it a box pre-reduction takes over.
#define DEX_MAX_FILTER_SCALE 16
#define LANCZOS_SUPPORT 3.0

static double sinc(double x) {
  if (x == 0.0) return 1.0;
  x *= M_PI;
  return sin(x) / x;
}

static double lanczos3(double x) {
  if (x > -LANCZOS_SUPPORT && x < LANCZOS_SUPPORT) return sinc(x) * sinc(x / LANCZOS_SUPPORT);
  return 0.0;
}

// Per output sample: first input index, tap count, and `taps` fixed-point weights.
static int precompute(int32_t in_size, int32_t out_size, int bits, int32_t *taps_out,
                      int32_t **bounds_out, int32_t **coeffs_out) {
  double scale = (double)in_size / (double)out_size;
  double filterscale = scale < 1.0 ? 1.0 : scale;
  double support = LANCZOS_SUPPORT * filterscale;
  int32_t taps = (int32_t)ceil(support) * 2 + 1;
  int32_t *bounds = malloc(sizeof(int32_t) * 2 * (size_t)out_size);
  int32_t *coeffs = malloc(sizeof(int32_t) * (size_t)taps * (size_t)out_size);
  double *weights = malloc(sizeof(double) * (size_t)taps);
  if (!bounds || !coeffs || !weights) {
    free(bounds);
    free(coeffs);
    free(weights);
    return -1;
  }
  double ss = 1.0 / filterscale;
  for (int32_t xx = 0; xx < out_size; xx++) {
    double center = ((double)xx + 0.5) * scale;
    int32_t xmin = (int32_t)(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int32_t xmax = (int32_t)(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    int32_t count = xmax - xmin;
    if (count > taps) count = taps;
    if (count < 1) {  // cannot happen for out <= in, kept so that no path divides by zero
      count = 1;
      if (xmin >= in_size) xmin = in_size - 1;
    }
    double total = 0.0;
    for (int32_t x = 0; x < count; x++) {
      double w = lanczos3(((double)(x + xmin) - center + 0.5) * ss);
      weights[x] = w;
      total += w;
    }
    int32_t *k = coeffs + (size_t)xx * (size_t)taps;
    for (int32_t x = 0; x < taps; x++) {
      double w = (x < count && total != 0.0) ? weights[x] / total : 0.0;
      if (total == 0.0 && x == 0) w = 1.0;
      k[x] = (int32_t)(w < 0 ? -0.5 + w * (1 << bits) : 0.5 + w * (1 << bits));
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = count;
  }
  free(weights);
  *taps_out = taps;
  *bounds_out = bounds;
  *coeffs_out = coeffs;
  return 0;
}

struct dex_resizer {
  int32_t sw, sh, dw, dh;
  /// Box pre-reduction factors (1 = none) and the box-reduced source size the Lanczos filter
  /// sees: bw = ceil(sw / kx), bh = ceil(sh / ky).
  int32_t kx, ky, bw, bh;
  uint8_t *dst;
  size_t dst_stride;
  int32_t htaps, vtaps;
  int32_t *hbounds, *hcoeffs, *vbounds, *vcoeffs;
  int16_t *vcoeffs16;
  int16_t *hcoeffs16;
  int32_t ring_rows;
  uint8_t *ring;          // ring_rows x (bw * 3) box-reduced rows
  uint8_t *mid;           // bw * 3 (+ padding): one vertically resampled row
  const uint8_t **window; // vtaps row pointers
  uint8_t *hbox;          // bw * 3 (+ padding): one horizontally box-reduced row (kx > 1)
  uint32_t *vsum;         // bw * 3: running sums of up to ky rows (ky > 1)
  uint8_t *vbox;          // bw * 3 (+ padding): the averaged row of a vertical box (ky > 1)
  int32_t vsum_rows;      // rows summed into vsum so far
  int32_t rows_in;        // source rows pushed
  int32_t reduced_in;     // box-reduced rows fed to the Lanczos stage
  int32_t next_out;
};

void dex_resizer_destroy(dex_resizer *r) {
  if (!r) return;
  free(r->hbounds);
  free(r->hcoeffs);
  free(r->vbounds);
  free(r->vcoeffs);
  free(r->vcoeffs16);
  free(r->hcoeffs16);
  free(r->ring);
  free(r->mid);
  free(r->window);
  free(r->hbox);
  free(r->vsum);
  free(r->vbox);
  free(r);
}

/// The integer box factor applied before the Lanczos filter on an axis reduced from `in` to
/// `out`: 1 while the reduction is at most DEX_MAX_FILTER_SCALE, else the factor that leaves
/// the filter a reduction of at least DEX_MAX_FILTER_SCALE / 2. Lanczos-3 over a reduction of
/// s reads 6 s + 1 source samples per output sample, so without this the filter's taps (and
/// the ring of source rows the vertical pass keeps) would grow with the source, not the
/// output: a 1 x 100 000 000 image headed for 1024 rows would need 586 000 taps per row.
static int32_t box_factor(int32_t in, int32_t out) {
  const int64_t limit = (int64_t)out * DEX_MAX_FILTER_SCALE;
  if ((int64_t)in <= limit) return 1;
  return (int32_t)((int64_t)in / ((int64_t)out * (DEX_MAX_FILTER_SCALE / 2)));
}

dex_resizer *dex_resizer_create(int32_t sw, int32_t sh, int32_t dw, int32_t dh, uint8_t *dst,
                                size_t dst_stride) {
  if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0 || dw > sw || dh > sh) return NULL;
  dex_resizer *r = calloc(1, sizeof(dex_resizer));
  if (!r) return NULL;
  r->sw = sw;
  r->sh = sh;
  r->dw = dw;
  r->dh = dh;
  r->dst = dst;
  r->dst_stride = dst_stride;
  r->kx = box_factor(sw, dw);
  r->ky = box_factor(sh, dh);
  r->bw = (int32_t)(((int64_t)sw + r->kx - 1) / r->kx);
  r->bh = (int32_t)(((int64_t)sh + r->ky - 1) / r->ky);
  const size_t reduced_bytes = (size_t)r->bw * 3;
  if (r->kx > 1) {
    r->hbox = calloc(reduced_bytes + 16, 1);
    if (!r->hbox) goto fail;
  }
  if (r->ky > 1) {
    r->vsum = calloc(reduced_bytes, sizeof(uint32_t));
    r->vbox = calloc(reduced_bytes + 16, 1);
    if (!r->vsum || !r->vbox) goto fail;
  }
  if (dw != r->bw) {
    if (precompute(r->bw, dw, VERTICAL_BITS, &r->htaps, &r->hbounds, &r->hcoeffs) != 0) goto fail;
    const size_t total = (size_t)r->htaps * (size_t)dw;
    r->hcoeffs16 = malloc(sizeof(int16_t) * total);
    if (!r->hcoeffs16) goto fail;
    for (size_t i = 0; i < total; i++) {
      int32_t v = r->hcoeffs[i];
      r->hcoeffs16[i] = (int16_t)(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));
    }
  }
  // Padded so that 8-byte SIMD loads past the last pixel stay inside the allocation.
  r->mid = calloc(reduced_bytes + 16, 1);
  if (!r->mid) goto fail;
  if (dh != r->bh) {
    if (precompute(r->bh, dh, VERTICAL_BITS, &r->vtaps, &r->vbounds, &r->vcoeffs) != 0) goto fail;
    const size_t total = (size_t)r->vtaps * (size_t)dh;
    r->vcoeffs16 = malloc(sizeof(int16_t) * total);
    r->ring_rows = r->vtaps + 2;
    r->ring = malloc((size_t)r->ring_rows * reduced_bytes);
    r->window = malloc(sizeof(uint8_t *) * (size_t)r->vtaps);
    if (!r->vcoeffs16 || !r->ring || !r->window) goto fail;
    for (size_t i = 0; i < total; i++) {
      int32_t v = r->vcoeffs[i];
      r->vcoeffs16[i] = (int16_t)(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));
    }
  }
  return r;
fail:
  dex_resizer_destroy(r);
  return NULL;
}

static inline uint8_t clip14(int32_t v) {
  v >>= VERTICAL_BITS;
  return v < 0 ? 0 : (v > 255 ? 255 : (uint8_t)v);
}

// `src` must be readable for 16 bytes past bw * 3 (a padded buffer: `mid`, `hbox` or `vbox`).
static void horizontal_row(const dex_resizer *r, const uint8_t *src, uint8_t *out) {
  if (!r->hcoeffs) {
    memcpy(out, src, (size_t)r->dw * 3);
    return;
  }
  const int32_t taps = r->htaps;
  for (int32_t xx = 0; xx < r->dw; xx++) {
    const int32_t xmin = r->hbounds[xx * 2];
    const int32_t count = r->hbounds[xx * 2 + 1];
    const int16_t *k = r->hcoeffs16 + (size_t)xx * (size_t)taps;
    const uint8_t *p = src + (size_t)xmin * 3;
#if defined(__SSE2__)
    // Two taps per step: [r0 g0 b0 r1 g1 b1 . .] -> pairs (r0,r1) (g0,g1) (b0,b1) -> pmaddwd.
    const __m128i zero = _mm_setzero_si128();
    __m128i acc = _mm_set1_epi32(1 << (VERTICAL_BITS - 1));
    for (int32_t x = 0; x < count; x += 2) {
      const int16_t k1 = x + 1 < count ? k[x + 1] : 0;
      const __m128i px = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p + x * 3)), zero);
      const __m128i pairs = _mm_unpacklo_epi16(px, _mm_srli_si128(px, 6));
      const __m128i kk =
          _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)k[x] | ((uint32_t)(uint16_t)k1 << 16)));
      acc = _mm_add_epi32(acc, _mm_madd_epi16(pairs, kk));
    }
    acc = _mm_srai_epi32(acc, VERTICAL_BITS);
    const __m128i packed = _mm_packus_epi16(_mm_packs_epi32(acc, acc), zero);
    const uint32_t rgbx = (uint32_t)_mm_cvtsi128_si32(packed);
    out[xx * 3 + 0] = (uint8_t)(rgbx & 0xFF);
    out[xx * 3 + 1] = (uint8_t)((rgbx >> 8) & 0xFF);
    out[xx * 3 + 2] = (uint8_t)((rgbx >> 16) & 0xFF);
#else
    int32_t a0 = 1 << (VERTICAL_BITS - 1), a1 = a0, a2 = a0;
    for (int32_t x = 0; x < count; x++) {
      const int32_t w = k[x];
      a0 += p[x * 3 + 0] * w;
      a1 += p[x * 3 + 1] * w;
      a2 += p[x * 3 + 2] * w;
    }
    out[xx * 3 + 0] = clip14(a0);
    out[xx * 3 + 1] = clip14(a1);
    out[xx * 3 + 2] = clip14(a2);
#endif
  }
}

// out[i] = sum_t rows[t][i] * k[t] over n bytes (all channels alike).
static void vertical_row(const uint8_t *const *rows, const int16_t *k, int32_t taps, uint8_t *out,
                         size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i half = _mm_set1_epi32(1 << (VERTICAL_BITS - 1));
  for (; i + 16 <= n; i += 16) {
    __m128i a0 = half, a1 = half, a2 = half, a3 = half;
    int32_t t = 0;
    for (; t + 1 < taps; t += 2) {
      const __m128i ra = _mm_loadu_si128((const __m128i *)(rows[t] + i));
      const __m128i rb = _mm_loadu_si128((const __m128i *)(rows[t + 1] + i));
      const __m128i kk =
          _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)k[t] | ((uint32_t)(uint16_t)k[t + 1] << 16)));
      const __m128i alo = _mm_unpacklo_epi8(ra, zero), ahi = _mm_unpackhi_epi8(ra, zero);
      const __m128i blo = _mm_unpacklo_epi8(rb, zero), bhi = _mm_unpackhi_epi8(rb, zero);
      a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(alo, blo), kk));
      a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(alo, blo), kk));
      a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi16(ahi, bhi), kk));
      a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi16(ahi, bhi), kk));
    }
    if (t < taps) {
      const __m128i ra = _mm_loadu_si128((const __m128i *)(rows[t] + i));
      const __m128i kk = _mm_set1_epi32((int32_t)(uint32_t)(uint16_t)k[t]);
      const __m128i alo = _mm_unpacklo_epi8(ra, zero), ahi = _mm_unpackhi_epi8(ra, zero);
      a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(alo, zero), kk));
      a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(alo, zero), kk));
      a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi16(ahi, zero), kk));
      a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi16(ahi, zero), kk));
    }
    a0 = _mm_srai_epi32(a0, VERTICAL_BITS);
    a1 = _mm_srai_epi32(a1, VERTICAL_BITS);
    a2 = _mm_srai_epi32(a2, VERTICAL_BITS);
    a3 = _mm_srai_epi32(a3, VERTICAL_BITS);
    const __m128i lo = _mm_packs_epi32(a0, a1), hi = _mm_packs_epi32(a2, a3);
    _mm_storeu_si128((__m128i *)(out + i), _mm_packus_epi16(lo, hi));
  }
#endif
  for (; i < n; i++) {
    int32_t acc = 1 << (VERTICAL_BITS - 1);
    for (int32_t t = 0; t < taps; t++) acc += rows[t][i] * k[t];
    out[i] = clip14(acc);
  }
}

static void emit_ready_rows(dex_resizer *r) {
  const size_t src_bytes = (size_t)r->bw * 3;
  while (r->next_out < r->dh) {
    const int32_t ymin = r->vbounds[r->next_out * 2];
    const int32_t count = r->vbounds[r->next_out * 2 + 1];
    if (ymin + count > r->reduced_in) return;
    for (int32_t y = 0; y < count; y++)
      r->window[y] = r->ring + (size_t)((ymin + y) % r->ring_rows) * src_bytes;
    vertical_row(r->window, r->vcoeffs16 + (size_t)r->next_out * (size_t)r->vtaps, count, r->mid,
                 src_bytes);
    horizontal_row(r, r->mid, r->dst + (size_t)r->next_out * r->dst_stride);
    r->next_out++;
  }
}

/// Feeds one box-reduced row (bw pixels) to the Lanczos stage. `padded` says whether `row` is
/// readable 16 bytes past its end, as the SIMD horizontal pass needs.
static void push_reduced_row(dex_resizer *r, const uint8_t *row, int padded) {
  const size_t bytes = (size_t)r->bw * 3;
  if (!r->vcoeffs) {
    const uint8_t *src = row;
    if (r->hcoeffs && !padded) {  // copy into the padded buffer the SIMD loads need
      memcpy(r->mid, row, bytes);
      src = r->mid;
    }
    horizontal_row(r, src, r->dst + (size_t)r->reduced_in * r->dst_stride);
    r->reduced_in++;
    return;
  }
  memcpy(r->ring + (size_t)(r->reduced_in % r->ring_rows) * bytes, row, bytes);
  r->reduced_in++;
  emit_ready_rows(r);
}

/// Averages each run of kx pixels of `row` (the last run may be shorter) into r->hbox.
static void box_row(const dex_resizer *r, const uint8_t *row) {
  const int32_t kx = r->kx;
  for (int32_t x = 0; x < r->bw; x++) {
    const int32_t start = x * kx;
    const int32_t n = start + kx <= r->sw ? kx : r->sw - start;
    const uint8_t *p = row + (size_t)start * 3;
    uint32_t a0 = 0, a1 = 0, a2 = 0;
    for (int32_t i = 0; i < n; i++) {
      a0 += p[i * 3 + 0];
      a1 += p[i * 3 + 1];
      a2 += p[i * 3 + 2];
    }
    const uint32_t half = (uint32_t)n / 2;
    r->hbox[x * 3 + 0] = (uint8_t)((a0 + half) / (uint32_t)n);
    r->hbox[x * 3 + 1] = (uint8_t)((a1 + half) / (uint32_t)n);
    r->hbox[x * 3 + 2] = (uint8_t)((a2 + half) / (uint32_t)n);
  }
}

void dex_resizer_push_row(dex_resizer *r, const uint8_t *row) {
  if (r->rows_in >= r->sh) return;
  r->rows_in++;
  const uint8_t *src = row;
  int padded = 0;
  if (r->kx > 1) {
    box_row(r, row);
    src = r->hbox;
    padded = 1;
  }
  if (r->ky == 1) {
    push_reduced_row(r, src, padded);
    return;
  }
  const size_t bytes = (size_t)r->bw * 3;
  for (size_t i = 0; i < bytes; i++) r->vsum[i] += src[i];
  r->vsum_rows++;
  if (r->vsum_rows < r->ky && r->rows_in < r->sh) return;
  const uint32_t n = (uint32_t)r->vsum_rows, half = n / 2;
  for (size_t i = 0; i < bytes; i++) {
    r->vbox[i] = (uint8_t)((r->vsum[i] + half) / n);
    r->vsum[i] = 0;
  }
  r->vsum_rows = 0;
  push_reduced_row(r, r->vbox, 1);
}

int32_t dex_resizer_rows_pushed(const dex_resizer *r) { return r->rows_in; }

int32_t dex_resample_rgb(const uint8_t *src, int32_t sw, int32_t sh, size_t src_stride,
                         uint8_t *dst, int32_t dw, int32_t dh, size_t dst_stride) {
  if (!src || !dst || sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0 || dw > sw || dh > sh)
    return DEX_STATUS_INVALID_ARGUMENT;
  dex_resizer *r = dex_resizer_create(sw, sh, dw, dh, dst, dst_stride);
  if (!r) return DEX_STATUS_OUT_OF_MEMORY;
  for (int32_t y = 0; y < sh; y++) dex_resizer_push_row(r, src + (size_t)y * src_stride);
  dex_resizer_destroy(r);
  return DEX_STATUS_OK;
}

int32_t dex_orient_rgb(const uint8_t *src, int32_t sw, int32_t sh, uint8_t *dst,
                       int32_t orientation) {
  if (!src || !dst || sw <= 0 || sh <= 0 || orientation < 1 || orientation > 8)
    return DEX_STATUS_INVALID_ARGUMENT;
  const int transposed = orientation >= 5;
  const int32_t dw = transposed ? sh : sw;
  const int32_t dh = transposed ? sw : sh;
  const size_t ss = (size_t)sw * 3;
  for (int32_t y = 0; y < dh; y++) {
    uint8_t *out = dst + (size_t)y * (size_t)dw * 3;
    for (int32_t x = 0; x < dw; x++) {
      int32_t sx, sy;
      switch (orientation) {
        case 1: sx = x; sy = y; break;
        case 2: sx = sw - 1 - x; sy = y; break;
        case 3: sx = sw - 1 - x; sy = sh - 1 - y; break;
        case 4: sx = x; sy = sh - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = sh - 1 - x; break;
        case 7: sx = sw - 1 - y; sy = sh - 1 - x; break;
        default: sx = sw - 1 - y; sy = x; break;
      }
      const uint8_t *p = src + (size_t)sy * ss + (size_t)sx * 3;
      out[x * 3 + 0] = p[0];
      out[x * 3 + 1] = p[1];
      out[x * 3 + 2] = p[2];
    }
  }
  return DEX_STATUS_OK;
}
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
