// System libwebp and libwebpdemux (WebP stills, EXIF chunk, animations) for DexImaging's C shim.
#include <webp/decode.h>
#include <webp/demux.h>
