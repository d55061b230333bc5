// Internal: the streaming resizer shared by every decoder of the shim (JPEG, PNG, HEIF, WebP).
#ifndef DEX_RESAMPLE_H
#define DEX_RESAMPLE_H
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

#include "CDexImageShim.h"

typedef struct dex_resizer dex_resizer;

/// Resizer from sw x sh to dw x dh (dw <= sw, dh <= sh) writing RGB8 rows into dst.
dex_resizer *dex_resizer_create(int32_t sw, int32_t sh, int32_t dw, int32_t dh, uint8_t *dst,
                                size_t dst_stride);
void dex_resizer_destroy(dex_resizer *resizer);
/// Feeds the next source row (sw RGB8 pixels); rows beyond sh are ignored.
void dex_resizer_push_row(dex_resizer *resizer, const uint8_t *row);
int32_t dex_resizer_rows_pushed(const dex_resizer *resizer);

/// Feeds a resizer either inline or from a worker thread, so that on a multi-core machine the
/// Lanczos pass overlaps the libjpeg/libpng decode instead of adding to it. The producer writes
/// rows into slots it acquires; the worker drains them in order.
typedef struct dex_row_pipeline dex_row_pipeline;

#define DEX_PIPELINE_ROWS 32

/// `row_bytes` is the source row size (sw * 3). `threaded` 0 pushes rows inline. Falls back to
/// inline when a thread cannot be started. NULL when out of memory.
dex_row_pipeline *dex_pipeline_create(dex_resizer *resizer, size_t row_bytes, int threaded);
/// A buffer for up to DEX_PIPELINE_ROWS rows (row stride = row_bytes); blocks while all are busy.
uint8_t *dex_pipeline_acquire(dex_row_pipeline *pipeline);
/// Hands the `rows` rows written into the last acquired buffer to the resizer.
void dex_pipeline_commit(dex_row_pipeline *pipeline, int32_t rows);
/// Waits until every committed row has been resized and stops the worker. Idempotent.
void dex_pipeline_finish(dex_row_pipeline *pipeline);
/// finish + free. Safe on NULL.
void dex_pipeline_destroy(dex_row_pipeline *pipeline);
/// Destroys a decoder's pipeline (joining its worker) and then its resizer, and clears both
/// pointers; what every decoder does when it releases its buffers. Safe on NULLs.
void dex_resampling_release(dex_row_pipeline **pipeline, dex_resizer **resizer);

#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
#endif
