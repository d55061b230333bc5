// Internal: RGBA -> RGB compositing onto a solid background, shared by the HEIF and WebP paths.
#ifndef DEX_ALPHA_H
#define DEX_ALPHA_H
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

#include <stdint.h>

/// Composites `width` RGBA8 pixels onto (br, bg, bb) into RGB8 `dst`. `premultiplied` says the
/// colour channels are already multiplied by alpha (libwebp's MODE_rgbA, premultiplied HEIF).
static inline void dex_composite_rgba_row(const uint8_t *src, uint8_t *dst, int32_t width,
                                          int premultiplied, uint8_t br, uint8_t bg, uint8_t bb) {
  const uint32_t back[3] = {br, bg, bb};
  for (int32_t x = 0; x < width; x++) {
    const uint32_t a = src[x * 4 + 3], ia = 255 - a;
    for (int c = 0; c < 3; c++) {
      uint32_t v;
      if (premultiplied) {
        v = src[x * 4 + c] + (back[c] * ia + 127) / 255;
        if (v > 255) v = 255;
      } else {
        v = (src[x * 4 + c] * a + back[c] * ia + 127) / 255;
      }
      dst[x * 3 + c] = (uint8_t)v;
    }
  }
}

#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
#endif
