// Internal: the streaming resizer shared by the JPEG and PNG decoders.
#ifndef DEX_RESAMPLE_H
#define DEX_RESAMPLE_H

#include "CDexImageShim.h"

typedef struct dex_resizer dex_resizer;

/// Resizer from sw x sh to dw x dh (dw <= sw, dh <= sh) writing RGB8 rows into dst.
dex_resizer *dex_resizer_create(int32_t sw, int32_t sh, int32_t dw, int32_t dh, uint8_t *dst,
                                size_t dst_stride);
void dex_resizer_destroy(dex_resizer *resizer);
/// Feeds the next source row (sw RGB8 pixels); rows beyond sh are ignored.
void dex_resizer_push_row(dex_resizer *resizer, const uint8_t *row);
int32_t dex_resizer_rows_pushed(const dex_resizer *resizer);

#endif
