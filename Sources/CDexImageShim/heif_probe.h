// Internal: what libheif cannot check itself, asked of the coded streams' own decoders.
#ifndef DEX_HEIF_PROBE_H
#define DEX_HEIF_PROBE_H
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

#include <stdint.h>

#include <libheif/heif.h>

#include "CDexImageShim.h"

/// Registers the probe with libheif as a decoder plugin of the lowest priority, chosen only by
/// name (heif_init must have run).
void dex_heif_probe_register(void);

/// Refuses the file unless every HEVC / AV1 image item's coded stream declares a picture no
/// larger than its item's `ispe` (plus one 64-pixel coding block), measured by libde265 and
/// dav1d up to the point where they would allocate the picture. At most `max_items` items.
int32_t dex_heif_probe_streams(struct heif_context *context, uint32_t max_items, char *message);

/// Walks the images libheif decodes to make `primary`, through libheif's item references: the
/// `dimg` inputs of a grid, overlay or identity transform, recursively, and the alpha image of
/// each. Deny by default: every one of them, the primary included, must be an HEVC or AV1 image
/// (`hvc1`, `av01`) or a grid, overlay or identity transform (`grid`, `iovl`, `iden`); any other
/// coding (uncompressed `unci`, JPEG, JPEG 2000, VVC, AVC, whatever plugin a host installed) is
/// refused with DEX_STATUS_UNSUPPORTED. Fills the header's input count and pixels; at most
/// 4 * max_items + 16 images are visited (DEX_STATUS_TOO_LARGE past that).
int32_t dex_heif_walk_inputs(struct heif_context *context, heif_item_id primary,
                             uint32_t max_items, dex_heif_header *header, char *message);

#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
#endif
