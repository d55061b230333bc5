// System Tesseract 5 (Debian libtesseract-dev) through its C API, for CDexTextShim only.
#include <tesseract/capi.h>
