// Lanczos-3 separable resampler for RGB8, streaming rows.
//
// Why C and not Swift: this loop is where the time goes after a DCT-scaled decode. Written as
// plain C with fixed-point int32 coefficients (22 fractional bits, the same precision scheme
// Pillow uses) clang auto-vectorises the vertical pass (uint8 -> int32 multiply-accumulate over a
// contiguous row) and keeps the horizontal pass branch-free; the equivalent Swift needs unsafe
// pointers everywhere plus bounds-check elision to reach the same speed.
//
// Rows are pushed as the decoder produces them: the horizontal pass runs immediately into a small
// ring of (taps + 2) rows and every output row is emitted as soon as its vertical window is
// complete, so memory is O(taps x output width), independent of the source height.
#include "resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PRECISION_BITS 22
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
static int precompute(int32_t in_size, int32_t out_size, int32_t *taps_out, int32_t **bounds_out,
                      int32_t **coeffs_out) {
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
      k[x] = (int32_t)(w < 0 ? -0.5 + w * (1 << PRECISION_BITS) : 0.5 + w * (1 << PRECISION_BITS));
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

static inline uint8_t clip8(int32_t v) {
  v >>= PRECISION_BITS;
  return v < 0 ? 0 : (v > 255 ? 255 : (uint8_t)v);
}

struct dex_resizer {
  int32_t sw, sh, dw, dh;
  uint8_t *dst;
  size_t dst_stride;
  int32_t htaps, vtaps;
  int32_t *hbounds, *hcoeffs, *vbounds, *vcoeffs;
  int32_t ring_rows;
  uint8_t *ring;   // ring_rows x (dw * 3)
  int32_t *accum;  // dw * 3
  int32_t rows_in;
  int32_t next_out;
};

void dex_resizer_destroy(dex_resizer *r) {
  if (!r) return;
  free(r->hbounds);
  free(r->hcoeffs);
  free(r->vbounds);
  free(r->vcoeffs);
  free(r->ring);
  free(r->accum);
  free(r);
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
  if (dw != sw && precompute(sw, dw, &r->htaps, &r->hbounds, &r->hcoeffs) != 0) goto fail;
  if (dh != sh) {
    if (precompute(sh, dh, &r->vtaps, &r->vbounds, &r->vcoeffs) != 0) goto fail;
    r->ring_rows = r->vtaps + 2;
    r->ring = malloc((size_t)r->ring_rows * (size_t)dw * 3);
    r->accum = malloc(sizeof(int32_t) * (size_t)dw * 3);
    if (!r->ring || !r->accum) goto fail;
  }
  return r;
fail:
  dex_resizer_destroy(r);
  return NULL;
}

static void horizontal_row(const dex_resizer *r, const uint8_t *src, uint8_t *out) {
  if (!r->hcoeffs) {
    memcpy(out, src, (size_t)r->dw * 3);
    return;
  }
  const int32_t taps = r->htaps;
  for (int32_t xx = 0; xx < r->dw; xx++) {
    const int32_t xmin = r->hbounds[xx * 2];
    const int32_t count = r->hbounds[xx * 2 + 1];
    const int32_t *k = r->hcoeffs + (size_t)xx * (size_t)taps;
    const uint8_t *p = src + (size_t)xmin * 3;
    int32_t a0 = 1 << (PRECISION_BITS - 1), a1 = a0, a2 = a0;
    for (int32_t x = 0; x < count; x++) {
      const int32_t w = k[x];
      a0 += p[x * 3 + 0] * w;
      a1 += p[x * 3 + 1] * w;
      a2 += p[x * 3 + 2] * w;
    }
    out[xx * 3 + 0] = clip8(a0);
    out[xx * 3 + 1] = clip8(a1);
    out[xx * 3 + 2] = clip8(a2);
  }
}

static void emit_ready_rows(dex_resizer *r) {
  const size_t row_bytes = (size_t)r->dw * 3;
  while (r->next_out < r->dh) {
    const int32_t ymin = r->vbounds[r->next_out * 2];
    const int32_t count = r->vbounds[r->next_out * 2 + 1];
    if (ymin + count > r->rows_in) return;
    const int32_t *k = r->vcoeffs + (size_t)r->next_out * (size_t)r->vtaps;
    int32_t *restrict acc = r->accum;
    for (size_t i = 0; i < row_bytes; i++) acc[i] = 1 << (PRECISION_BITS - 1);
    for (int32_t y = 0; y < count; y++) {
      const uint8_t *restrict row = r->ring + (size_t)((ymin + y) % r->ring_rows) * row_bytes;
      const int32_t w = k[y];
      for (size_t i = 0; i < row_bytes; i++) acc[i] += row[i] * w;
    }
    uint8_t *restrict out = r->dst + (size_t)r->next_out * r->dst_stride;
    for (size_t i = 0; i < row_bytes; i++) out[i] = clip8(acc[i]);
    r->next_out++;
  }
}

void dex_resizer_push_row(dex_resizer *r, const uint8_t *row) {
  if (r->rows_in >= r->sh) return;
  if (!r->vcoeffs) {
    horizontal_row(r, row, r->dst + (size_t)r->rows_in * r->dst_stride);
    r->rows_in++;
    return;
  }
  uint8_t *slot = r->ring + (size_t)(r->rows_in % r->ring_rows) * (size_t)r->dw * 3;
  horizontal_row(r, row, slot);
  r->rows_in++;
  emit_ready_rows(r);
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
