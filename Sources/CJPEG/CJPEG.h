// System libjpeg (libjpeg-turbo) for DexImaging. jpeglib.h needs stdio.h/stddef.h first.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
