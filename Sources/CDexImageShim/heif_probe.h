// Internal: what libheif cannot check itself, asked of the coded streams' own decoders.
#ifndef DEX_HEIF_PROBE_H
#define DEX_HEIF_PROBE_H
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

#include <stdint.h>

#include <libheif/heif.h>

/// Registers the probe with libheif as a decoder plugin of the lowest priority, chosen only by
/// name (heif_init must have run).
void dex_heif_probe_register(void);

/// Refuses the file unless every HEVC / AV1 image item's coded stream declares a picture no
/// larger than its item's `ispe` (plus one 64-pixel coding block), measured by libde265 and
/// dav1d up to the point where they would allocate the picture. At most `max_items` items.
int32_t dex_heif_probe_streams(struct heif_context *context, uint32_t max_items, char *message);

/// The pixels an overlay's inputs decode to (libheif decodes each input in full, wherever it is
/// drawn), read through libheif's item references; 0 when `primary` is not an overlay.
int64_t dex_heif_overlay_input_pixels(struct heif_context *context, heif_item_id primary);

#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
#endif
