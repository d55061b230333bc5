// CDexTextShim's private check of language data before Tesseract loads it (traineddata.c).
#ifndef CDEXTEXTSHIM_TRAINEDDATA_H
#define CDEXTEXTSHIM_TRAINEDDATA_H
#if defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)

#include <stddef.h>

/// Checks `<datapath>/<language>.traineddata` for every language of `languages` ("eng" or
/// "eng+deu") and, on Linux, loads them once with engine mode `oem` in the probe executable at
/// `probe_path` (spawned and exec'd; NULL refuses the data), so that data that would end the
/// process in Tesseract is refused instead (a clean refusal by Tesseract too, unless
/// `refusal_passes`). DEX_STATUS_OK, or DEX_STATUS_UNAVAILABLE with a message naming the language and
/// what is wrong. Takes no lock of the engines' while the probe runs.
int dex_traineddata_check(const char *probe_path, const char *datapath, const char *languages,
                          int oem, int refusal_passes, char *message, size_t size);

#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)
#endif
