// CDexTextShim's private check of language data before Tesseract loads it (traineddata.c).
#ifndef CDEXTEXTSHIM_TRAINEDDATA_H
#define CDEXTEXTSHIM_TRAINEDDATA_H

#include <stddef.h>

/// Checks `<datapath>/<language>.traineddata` for every language of `languages` ("eng" or
/// "eng+deu") and, on Linux, loads them once with engine mode `oem` in a forked child, so that
/// data that would end the process in Tesseract is refused instead (a clean refusal by Tesseract
/// too, unless `refusal_passes`). DEX_OCR_OK, or DEX_OCR_INIT_FAILED with a message naming the
/// language and what is wrong. Not to be called with the lifecycle lock held: the test load
/// takes it.
int dex_traineddata_check(const char *datapath, const char *languages, int oem,
                          int refusal_passes, char *message, size_t size);

/// The process-wide lock around Tesseract engines' creation and end (shim.c).
void dex_ocr_lifecycle_lock(void);
void dex_ocr_lifecycle_unlock(void);

#endif
