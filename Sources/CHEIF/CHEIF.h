// System libheif (HEIF / HEIC / AVIF) for DexImaging's C shim.
#include <libheif/heif.h>
