// CDexTextShim: see include/CDexTextShim.h.
#if defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)
#define _GNU_SOURCE  // RTLD_DEFAULT
#include "CDexTextShim.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <tesseract/capi.h>

#include "traineddata.h"

struct dex_ocr_engine {
  TessBaseAPI *api;
  char *datapath;
  char *probe;
  bool osd_checked;
};

struct dex_ocr_job {
  atomic_bool cancelled;
  atomic_bool deadline_passed;
  struct timespec deadline;
  int64_t timeout_ms;
};

// Tesseract's `debug_file` is a process-wide variable that every SetVariable/Init writes, and
// Init/End touch other shared tables: engines are created and ended one at a time.
static pthread_mutex_t engine_lifecycle_lock = PTHREAD_MUTEX_INITIALIZER;

/// Leptonica (under Tesseract) prints its errors and warnings to stderr ("Error in
/// pixScanForForeground" on a noisy strip): its threshold goes to "none" once. Reached through
/// the process's symbols, since Leptonica is Tesseract's dependency, not linked here by name
/// (liblept or libleptonica, by distribution).
static pthread_once_t leptonica_once = PTHREAD_ONCE_INIT;
static void quiet_leptonica(void) {
  enum { L_SEVERITY_NONE_VALUE = 6 };  // leptonica/environ.h: L_SEVERITY_NONE
  int (*set_severity)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "setMsgSeverity");
  if (set_severity != NULL) set_severity(L_SEVERITY_NONE_VALUE);
}

static void copy_message(char *message, size_t size, const char *text) {
  if (message == NULL || size == 0) return;
  snprintf(message, size, "%s", text);
}

/// Whether `api` loaded every language of `languages` ("eng+deu"), in order (Tesseract loads a
/// language named twice once).
static bool loaded_all(TessBaseAPI *api, const char *languages) {
  char **loaded = TessBaseAPIGetLoadedLanguagesAsVector(api);
  if (loaded == NULL) return false;
  size_t count = 0;
  bool all = true;
  for (const char *name = languages; all && *name != 0;) {
    size_t length = strcspn(name, "+");
    bool repeated = false;
    for (const char *earlier = languages; earlier < name && !repeated;) {
      size_t earlier_length = strcspn(earlier, "+");
      repeated = earlier_length == length && strncmp(earlier, name, length) == 0;
      earlier += earlier_length + (earlier[earlier_length] == '+');
    }
    if (!repeated) {
      all = loaded[count] != NULL && strlen(loaded[count]) == length &&
            strncmp(loaded[count], name, length) == 0;
      count++;
    }
    name += length + (name[length] == '+');
  }
  all = all && count > 0 && loaded[count] == NULL;
  TessDeleteTextArray(loaded);
  return all;
}

static int engine_create_locked(const char *datapath, const char *languages, const char *probe,
                                dex_ocr_engine **out, char *message, size_t message_size) {
  pthread_once(&leptonica_once, quiet_leptonica);
  dex_ocr_engine *engine = calloc(1, sizeof *engine);
  if (engine == NULL) return DEX_STATUS_OUT_OF_MEMORY;
  engine->api = TessBaseAPICreate();
  engine->datapath = strdup(datapath);
  engine->probe = probe != NULL ? strdup(probe) : NULL;
  if (engine->api == NULL || engine->datapath == NULL || (probe != NULL && engine->probe == NULL)) {
    if (engine->api != NULL) TessBaseAPIDelete(engine->api);
    free(engine->datapath);
    free(engine->probe);
    free(engine);
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  // Tesseract's tprintf writes to `debug_file` (stderr when empty): silence it before Init, which
  // is the first thing that prints.
  TessBaseAPISetVariable(engine->api, "debug_file", "/dev/null");
  const char *failure = NULL;
  if (TessBaseAPIInit3(engine->api, datapath, languages) != 0)
    failure = "Tesseract could not load";
  // Init succeeds with the languages it could load and leaves the others out: all or none.
  else if (!loaded_all(engine->api, languages))
    failure = "Tesseract loaded only some of";
  // Init reads the config files, which may set debug_file again.
  TessBaseAPISetVariable(engine->api, "debug_file", "/dev/null");
  if (failure != NULL) {
    char text[512];
    snprintf(text, sizeof text, "%s \"%s\" from %s", failure, languages, datapath);
    copy_message(message, message_size, text);
    TessBaseAPIEnd(engine->api);
    TessBaseAPIDelete(engine->api);
    free(engine->datapath);
    free(engine->probe);
    free(engine);
    return DEX_STATUS_UNAVAILABLE;
  }
  *out = engine;
  return DEX_STATUS_OK;
}

int dex_ocr_engine_create(const char *datapath, const char *languages, const char *probe,
                          dex_ocr_engine **out, char *message, size_t message_size) {
  if (out == NULL || datapath == NULL || languages == NULL) return DEX_STATUS_INVALID_ARGUMENT;
  *out = NULL;
  // Before the lock: the test load runs in a process of its own and needs none of this one's.
  int status = dex_traineddata_check(probe, datapath, languages, OEM_DEFAULT, false, message,
                                     message_size);
  if (status != DEX_STATUS_OK) return status;
  pthread_mutex_lock(&engine_lifecycle_lock);
  status = engine_create_locked(datapath, languages, probe, out, message, message_size);
  pthread_mutex_unlock(&engine_lifecycle_lock);
  return status;
}

void dex_ocr_engine_destroy(dex_ocr_engine *engine) {
  if (engine == NULL) return;
  pthread_mutex_lock(&engine_lifecycle_lock);
  TessBaseAPIEnd(engine->api);
  TessBaseAPIDelete(engine->api);
  pthread_mutex_unlock(&engine_lifecycle_lock);
  free(engine->datapath);
  free(engine->probe);
  free(engine);
}

/// With orientation detection, Tesseract loads `osd.traineddata` inside the first recognition
/// (and goes on without it where it is absent, or where it cannot use it): it is checked like
/// the languages first, once per engine.
static int check_osd(dex_ocr_engine *engine, char *message, size_t message_size) {
  if (engine->osd_checked) return DEX_STATUS_OK;
  char path[PATH_MAX];
  struct stat info;
  if (snprintf(path, sizeof path, "%s/osd.traineddata", engine->datapath) >= (int)sizeof path ||
      (stat(path, &info) != 0 && errno == ENOENT))
    return DEX_STATUS_OK;
  int status = dex_traineddata_check(engine->probe, engine->datapath, "osd", OEM_TESSERACT_ONLY,
                                     true, message, message_size);
  engine->osd_checked = status == DEX_STATUS_OK;
  return status == DEX_STATUS_OK ? DEX_STATUS_OK : DEX_STATUS_LIBRARY_ERROR;
}

dex_ocr_job *dex_ocr_job_create(int64_t timeout_ms) {
  dex_ocr_job *job = calloc(1, sizeof *job);
  if (job == NULL) return NULL;
  atomic_init(&job->cancelled, false);
  atomic_init(&job->deadline_passed, false);
  if (timeout_ms < 0) timeout_ms = 0;
  job->timeout_ms = timeout_ms;
  clock_gettime(CLOCK_MONOTONIC, &job->deadline);
  job->deadline.tv_sec += (time_t)(timeout_ms / 1000);
  job->deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (job->deadline.tv_nsec >= 1000000000L) {
    job->deadline.tv_sec += 1;
    job->deadline.tv_nsec -= 1000000000L;
  }
  return job;
}

void dex_ocr_job_cancel(dex_ocr_job *job) {
  if (job != NULL) atomic_store(&job->cancelled, true);
}

void dex_ocr_job_destroy(dex_ocr_job *job) { free(job); }

static bool job_deadline_passed(dex_ocr_job *job) {
  if (atomic_load(&job->deadline_passed)) return true;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  bool passed = now.tv_sec > job->deadline.tv_sec ||
                (now.tv_sec == job->deadline.tv_sec && now.tv_nsec >= job->deadline.tv_nsec);
  if (passed) atomic_store(&job->deadline_passed, true);
  return passed;
}

// Tesseract's monitor calls this between words: true stops the recognition.
static bool job_should_stop(void *cancel_this, int words) {
  (void)words;
  dex_ocr_job *job = cancel_this;
  return atomic_load(&job->cancelled) || job_deadline_passed(job);
}

static int stop_reason(dex_ocr_job *job) {
  if (atomic_load(&job->cancelled)) return DEX_STATUS_CANCELLED;
  if (job_deadline_passed(job)) return DEX_STATUS_TIMED_OUT;
  return DEX_STATUS_OK;
}

static int collect_lines(TessBaseAPI *api, dex_ocr_result *out) {
  TessResultIterator *iterator = TessBaseAPIGetIterator(api);
  if (iterator == NULL) return DEX_STATUS_OK;  // no text at all
  size_t capacity = 0;
  int status = DEX_STATUS_OK;
  TessPageIterator *page = TessResultIteratorGetPageIterator(iterator);
  do {
    char *text = TessResultIteratorGetUTF8Text(iterator, RIL_TEXTLINE);
    if (text == NULL) continue;
    int left = 0, top = 0, right = 0, bottom = 0;
    TessPageIteratorBoundingBox(page, RIL_TEXTLINE, &left, &top, &right, &bottom);
    float confidence = TessResultIteratorConfidence(iterator, RIL_TEXTLINE);
    char *copy = strdup(text);
    TessDeleteText(text);
    if (copy == NULL) {
      status = DEX_STATUS_OUT_OF_MEMORY;
      break;
    }
    if (out->count == capacity) {
      size_t grown = capacity == 0 ? 16 : capacity * 2;
      dex_ocr_line *lines = realloc(out->lines, grown * sizeof *lines);
      if (lines == NULL) {
        free(copy);
        status = DEX_STATUS_OUT_OF_MEMORY;
        break;
      }
      out->lines = lines;
      capacity = grown;
    }
    out->lines[out->count++] = (dex_ocr_line){copy, confidence, left, top, right, bottom};
  } while (TessResultIteratorNext(iterator, RIL_TEXTLINE));
  TessResultIteratorDelete(iterator);
  if (status != DEX_STATUS_OK) dex_ocr_result_free(out);
  return status;
}

int dex_ocr_recognize(dex_ocr_engine *engine, dex_ocr_job *job, const uint8_t *rgb, int width,
                      int height, int page_seg_mode, dex_ocr_result *out, char *message,
                      size_t message_size) {
  if (out == NULL) return DEX_STATUS_INVALID_ARGUMENT;
  out->lines = NULL;
  out->count = 0;
  if (engine == NULL || job == NULL || rgb == NULL || width <= 0 || height <= 0 ||
      width > INT32_MAX / 3 || page_seg_mode < 0 || page_seg_mode >= PSM_COUNT)
    return DEX_STATUS_INVALID_ARGUMENT;
  int reason = stop_reason(job);
  if (reason != DEX_STATUS_OK) return reason;
  if (page_seg_mode <= PSM_AUTO_OSD) {
    int checked = check_osd(engine, message, message_size);
    if (checked != DEX_STATUS_OK) return checked;
  }

  ETEXT_DESC *monitor = TessMonitorCreate();
  if (monitor == NULL) return DEX_STATUS_OUT_OF_MEMORY;
  TessMonitorSetCancelFunc(monitor, job_should_stop);
  TessMonitorSetCancelThis(monitor, job);
  int64_t deadline = job->timeout_ms > INT32_MAX ? INT32_MAX : job->timeout_ms;
  TessMonitorSetDeadlineMSecs(monitor, (int)deadline);

  TessBaseAPIClear(engine->api);
  TessBaseAPISetPageSegMode(engine->api, (TessPageSegMode)page_seg_mode);
  TessBaseAPISetImage(engine->api, rgb, width, height, 3, width * 3);
  int recognized = TessBaseAPIRecognize(engine->api, monitor);
  TessMonitorDelete(monitor);

  // A result that came back after the deadline or the cancel is not taken: the caller has been
  // promised an end at either.
  reason = stop_reason(job);
  int status;
  if (reason != DEX_STATUS_OK) {
    status = reason;
  } else if (recognized != 0) {
    copy_message(message, message_size, "Tesseract could not recognise this image");
    status = DEX_STATUS_LIBRARY_ERROR;
  } else {
    status = collect_lines(engine->api, out);
  }
  TessBaseAPIClear(engine->api);
  return status;
}

void dex_ocr_result_free(dex_ocr_result *result) {
  if (result == NULL) return;
  for (size_t i = 0; i < result->count; i++) free(result->lines[i].text);
  free(result->lines);
  result->lines = NULL;
  result->count = 0;
}
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)
