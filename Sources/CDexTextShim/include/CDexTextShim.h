// CDexTextShim: the only C that DexTextRecognition calls; it drives Tesseract 5 through its C API.
//
// No Tesseract type leaks into this header: Swift sees an opaque engine (one TessBaseAPI), an
// opaque job (the cancel flag and deadline of one recognition, safe to cancel from any thread)
// and plain C arrays of lines. An engine is used by one thread at a time; a job's cancel function
// may be called from any thread while the recognition runs.
#ifndef CDEXTEXTSHIM_H
#define CDEXTEXTSHIM_H

// Empty unless on Linux with the Tesseract trait: Package.swift defines DEXKIT_TRAIT_TESSERACT
// for this target's C only then. Swift's importer does not see that define; it is recognised by
// __swift__, and Swift imports this module only under `os(Linux) && Tesseract`.
#if defined(__linux__) && (defined(DEXKIT_TRAIT_TESSERACT) || defined(__swift__))

#include <stddef.h>
#include <stdint.h>

#include "CDexStatus.h"  // DEX_STATUS_*: the result codes of every fallible function here

#ifdef __cplusplus
extern "C" {
#endif

/// One Tesseract handle, initialised for a data directory and a language list.
typedef struct dex_ocr_engine dex_ocr_engine;

/// The cancel flag and deadline of one recognition.
typedef struct dex_ocr_job dex_ocr_job;

/// One recognised line: UTF-8 text (owned by the result), Tesseract's confidence (0...100) and
/// its box in image pixels, origin at the top left, right and bottom exclusive.
typedef struct {
  char *text;
  float confidence;
  int left, top, right, bottom;
} dex_ocr_line;

/// The lines of one recognition, in Tesseract's reading order.
typedef struct {
  dex_ocr_line *lines;
  size_t count;
} dex_ocr_result;

/// Creates an engine: a TessBaseAPI with its debug output sent to /dev/null, initialised with
/// `datapath` (a tessdata directory) and `languages` ("eng" or "eng+deu"), once the data has
/// passed its checks; on Linux one is a test load by the executable `probe`
/// (dex-traineddata-probe, spawned and exec'd; NULL refuses the data there). Creations and
/// destructions are serialised by one process-wide mutex (Tesseract's debug_file and its Init
/// tables are global), so any thread may call them. On failure returns
/// DEX_STATUS_UNAVAILABLE (or DEX_STATUS_OUT_OF_MEMORY) and writes a message into `message`.
int dex_ocr_engine_create(const char *datapath, const char *languages, const char *probe,
                          dex_ocr_engine **out, char *message, size_t message_size);

/// Ends and frees an engine; null is ignored.
void dex_ocr_engine_destroy(dex_ocr_engine *engine);

/// Creates a job whose deadline is `timeout_ms` milliseconds from now; NULL when out of memory.
dex_ocr_job *dex_ocr_job_create(int64_t timeout_ms);

/// Asks the job's recognition to stop at its next check; safe from any thread, any time.
void dex_ocr_job_cancel(dex_ocr_job *job);

/// Frees a job; null is ignored. Only once the recognition using it has returned.
void dex_ocr_job_destroy(dex_ocr_job *job);

/// Recognises interleaved RGB8 pixels (`width * height * 3` bytes, no row padding) with page
/// segmentation mode `page_seg_mode` (Tesseract's PSM numbers). Blocks until done, cancelled or
/// timed out. On DEX_STATUS_OK `out` holds the lines (free with dex_ocr_result_free); otherwise
/// `out` is empty and, for DEX_STATUS_LIBRARY_ERROR, `message` says why.
int dex_ocr_recognize(dex_ocr_engine *engine, dex_ocr_job *job, const uint8_t *rgb, int width,
                      int height, int page_seg_mode, dex_ocr_result *out, char *message,
                      size_t message_size);

/// Frees the lines of a result and empties it; an empty result is ignored.
void dex_ocr_result_free(dex_ocr_result *result);

#ifdef __cplusplus
}
#endif

#endif  // defined(__linux__) && (defined(DEXKIT_TRAIT_TESSERACT) || defined(__swift__))
#endif
