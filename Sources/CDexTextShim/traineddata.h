// CDexTextShim's private check of language data before Tesseract loads it (traineddata.c).
#ifndef CDEXTEXTSHIM_TRAINEDDATA_H
#define CDEXTEXTSHIM_TRAINEDDATA_H

#include <stddef.h>

/// Checks `<datapath>/<language>.traineddata` for every language of `languages` ("eng" or
/// "eng+deu") and, on Linux, loads them once with engine mode `oem` in a forked child, so that
/// data that would end the process in Tesseract is refused instead. DEX_OCR_OK, or
/// DEX_OCR_INIT_FAILED with a message naming the language and what is wrong.
int dex_traineddata_check(const char *datapath, const char *languages, int oem, char *message,
                          size_t size);

#endif
