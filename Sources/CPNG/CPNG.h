// System libpng 1.6 for DexImaging.
#include <png.h>
