// System libheif (HEIF / HEIC / AVIF) for DexImaging's C shim, and the HEVC (libde265) and AV1
// (dav1d) decoders it hands coded streams to, which the shim asks for a stream's picture size
// before libheif decodes it (Sources/CDexImageShim/heif_probe.c).
#include <libheif/heif.h>
