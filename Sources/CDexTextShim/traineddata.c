// CDexTextShim: language data checked before Tesseract loads it (see traineddata.h).
//
// Tesseract 5 ends the whole process on much of what a damaged .traineddata holds: an offset
// table that sizes a component negative or in gigabytes throws a C++ exception no one catches
// (std::terminate), a damaged model fails an ASSERT_HOST (abort()), a damaged dictionary reads
// out of bounds (SIGSEGV); a FIFO in its place blocks the open for ever, and a 1 GiB file is read
// whole, twice. Two checks stand between that and the host process:
//
// 1. The container: a regular file of at most 512 MiB, an entry count of 1...1000 (either byte
//    order, as Tesseract reads it), every offset absent (-1) or inside the file and in order,
//    and a model present (LSTM with its character set and recoder, or a legacy one). This reads
//    the offset table only (8 KB at most), opened without blocking.
// 2. On Linux, a test load in a forked child (no exec): the child loads exactly what the engine
//    will and reads a line of built-in text with it, under an address-space limit and an alarm,
//    and exits; the parent loads only data whose test load survived. The verdict is remembered by the files' identity (device, inode,
//    size, modification time) for the life of the process, so it costs one load (about 0.1 s,
//    plus a fork) per language set and data version.
//
// Left: a file changed between the test load and the engine's load, and damage that only some
// other text reaches in recognition (a dictionary entry the sample line does not touch).
#define _GNU_SOURCE
#include "traineddata.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tesseract/capi.h>

#include "CDexTextShim.h"

enum {
  MAX_ENTRIES = 1000,  // Tesseract's kMaxNumTessdataEntries
  MAX_LANGUAGES = 16,
  TESSDATA_UNICHARSET = 1,
  TESSDATA_INTTEMP = 3,
  TESSDATA_LSTM = 17,
  TESSDATA_LSTM_UNICHARSET = 21,
  TESSDATA_LSTM_RECODER = 22,
  KNOWN_ENTRIES = 24,
};
static const int64_t max_file_bytes = (int64_t)512 << 20;

static int refuse(char *message, size_t size, const char *language, const char *why) {
  if (message != NULL && size > 0)
    snprintf(message, size, "Tesseract's data for \"%s\" is unusable: %s", language, why);
  return DEX_OCR_INIT_FAILED;
}

static uint32_t read32(const unsigned char *p, int swapped) {
  uint32_t value;
  memcpy(&value, p, 4);
  return swapped ? __builtin_bswap32(value) : value;
}

static int64_t read64(const unsigned char *p, int swapped) {
  uint64_t value;
  memcpy(&value, p, 8);
  return (int64_t)(swapped ? __builtin_bswap64(value) : value);
}

/// Reads exactly `size` bytes at `offset`; false on a short read or an error.
static int read_at(int fd, unsigned char *buffer, size_t size, off_t offset) {
  size_t done = 0;
  while (done < size) {
    ssize_t got = pread(fd, buffer + done, size - done, offset + (off_t)done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    done += (size_t)got;
  }
  return 1;
}

/// Check 1 on one file; `identity` receives what the probe cache keys on.
static int check_container(const char *path, const char *language, struct stat *identity,
                           char *message, size_t size) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer for ever.
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    char why[160];
    snprintf(why, sizeof why, "cannot open it (%s)", strerror(errno));
    return refuse(message, size, language, why);
  }
  struct stat info;
  int status = DEX_OCR_OK;
  unsigned char header[4 + 8 * MAX_ENTRIES];
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    status = refuse(message, size, language, "not a regular file");
  } else if (info.st_size < 4 || info.st_size > max_file_bytes) {
    status = refuse(message, size, language, "its size is outside 4 bytes...512 MiB");
  } else if (!read_at(fd, header, 4, 0)) {
    status = refuse(message, size, language, "it could not be read");
  }
  int swapped = 0;
  uint32_t count = 0;
  if (status == DEX_OCR_OK) {
    count = read32(header, 0);
    if (count > MAX_ENTRIES) count = read32(header, swapped = 1);
    size_t table = 4 + 8 * (size_t)count;
    if (count == 0 || count > MAX_ENTRIES || (int64_t)table > info.st_size ||
        !read_at(fd, header + 4, table - 4, 4))
      status = refuse(message, size, language, "not a traineddata file (its entry table)");
  }
  close(fd);
  if (status != DEX_OCR_OK) return status;

  // Where each known component starts and ends, as Tesseract computes it: from its offset to
  // the next present one, or to the end of the file.
  const int64_t table_end = 4 + 8 * (int64_t)count;
  int64_t previous = table_end, starts[KNOWN_ENTRIES], sizes[KNOWN_ENTRIES] = {0};
  for (int i = 0; i < KNOWN_ENTRIES; i++) starts[i] = -1;
  int last_known = -1;
  for (uint32_t i = 0; i < count; i++) {
    int64_t offset = read64(header + 4 + 8 * (size_t)i, swapped);
    if (offset == -1) continue;
    if (offset < previous || offset > info.st_size)
      return refuse(message, size, language, "its entry table points outside the file");
    if (last_known >= 0) sizes[last_known] = offset - starts[last_known];
    last_known = -1;
    if (i < KNOWN_ENTRIES) starts[last_known = (int)i] = offset;
    previous = offset;
  }
  if (last_known >= 0) sizes[last_known] = info.st_size - starts[last_known];
  int lstm = sizes[TESSDATA_LSTM] > 0 && sizes[TESSDATA_LSTM_UNICHARSET] > 0 &&
             sizes[TESSDATA_LSTM_RECODER] > 0;
  int legacy = sizes[TESSDATA_UNICHARSET] > 0 && sizes[TESSDATA_INTTEMP] > 0;
  if (!lstm && !legacy) return refuse(message, size, language, "it holds no complete model");
  *identity = info;
  return DEX_OCR_OK;
}

#ifdef __linux__

/// The files one test load read: their identities, in order, and the engine mode.
typedef struct {
  int count;
  int oem;
  dev_t device[MAX_LANGUAGES];
  ino_t inode[MAX_LANGUAGES];
  off_t size[MAX_LANGUAGES];
  struct timespec modified[MAX_LANGUAGES];
} probe_key;

/// A test load's verdict: passed, or refused with `why` (a load that timed out is not kept:
/// a stalled child proves nothing about the data).
typedef struct {
  probe_key key;
  int passed;
  char why[120];
} probe_verdict;

enum { REMEMBERED = 32 };
static probe_verdict verdicts[REMEMBERED];
static int verdict_count, verdict_next;
static pthread_mutex_t verdicts_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_key(const probe_key *a, const probe_key *b) {
  if (a->count != b->count || a->oem != b->oem) return 0;
  for (int i = 0; i < a->count; i++)
    if (a->device[i] != b->device[i] || a->inode[i] != b->inode[i] || a->size[i] != b->size[i] ||
        a->modified[i].tv_sec != b->modified[i].tv_sec ||
        a->modified[i].tv_nsec != b->modified[i].tv_nsec)
      return 0;
  return 1;
}

/// Copies the verdict kept for `key` into `out`; false when there is none.
static int recall(const probe_key *key, probe_verdict *out) {
  pthread_mutex_lock(&verdicts_lock);
  int found = 0;
  for (int i = 0; i < verdict_count && !found; i++)
    if ((found = same_key(&verdicts[i].key, key))) *out = verdicts[i];
  pthread_mutex_unlock(&verdicts_lock);
  return found;
}

static void keep(const probe_verdict *verdict) {
  pthread_mutex_lock(&verdicts_lock);
  verdicts[verdict_next] = *verdict;
  verdict_next = (verdict_next + 1) % REMEMBERED;
  if (verdict_count < REMEMBERED) verdict_count++;
  pthread_mutex_unlock(&verdicts_lock);
}

/// The bytes the process maps now (the child starts with the same); 0 when unknown.
static size_t mapped_bytes(void) {
  FILE *file = fopen("/proc/self/statm", "re");
  unsigned long pages = 0;
  if (file != NULL) {
    if (fscanf(file, "%lu", &pages) != 1) pages = 0;
    fclose(file);
  }
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/// A line of words and digits in a 5×7 pixel font, drawn three times larger on white, so that
/// a recognition runs the model, the recoder and the dictionaries (damage there crashes
/// Tesseract only when it reads them; a pangram caught no more of the damaged files tried).
static unsigned char *sample_text(int *width, int *height) {
  static const char text[] = "The cat 2024";
  static const struct {
    char character;
    unsigned char rows[7];
  } font[] = {
      {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}},
      {'c', {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E}},
      {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
      {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}},
      {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}},
      {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
      {'0', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
      {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
      {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
  };
  enum { SCALE = 3, MARGIN = 16, LENGTH = sizeof text - 1 };
  *width = 2 * MARGIN + LENGTH * 6 * SCALE;
  *height = 2 * MARGIN + 7 * SCALE;
  unsigned char *pixels = malloc((size_t)*width * (size_t)*height);
  if (pixels == NULL) return NULL;
  memset(pixels, 255, (size_t)*width * (size_t)*height);
  for (int i = 0; i < LENGTH; i++)
    for (size_t f = 0; f < sizeof font / sizeof font[0]; f++) {
      if (font[f].character != text[i]) continue;
      for (int row = 0; row < 7 * SCALE; row++)
        for (int column = 0; column < 5 * SCALE; column++)
          if (font[f].rows[row / SCALE] & (0x10 >> (column / SCALE)))
            pixels[(size_t)(MARGIN + row) * (size_t)*width +
                   (size_t)(MARGIN + i * 6 * SCALE + column)] = 0;
    }
  return pixels;
}

/// The child: loads the data as the engine will, writes one byte to `report` if that worked,
/// and leaves without running anything of the parent's (no atexit handlers, no stdio flush).
static void probe_child(const char *datapath, const char *languages, int oem, int report) {
  // Only the report pipe stays open: the parent's sockets, pipes and file locks are not held
  // by the child (no exec, so close-on-exec never applies).
  if (report != 3) {
    dup2(report, 3);
    report = 3;
  }
  if (close_range(4, ~0U, 0) != 0)
    for (int fd = 4; fd < 65536; fd++) close(fd);
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  // Signals as the system defaults them: a host's crash reporter must not run here, and the
  // alarm must end a child that hangs. No core dump of a child that crashes.
  const int defaulted[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM, SIGPIPE};
  sigset_t unblocked;
  sigemptyset(&unblocked);
  for (size_t i = 0; i < sizeof defaulted / sizeof defaulted[0]; i++) {
    signal(defaulted[i], SIG_DFL);
    sigaddset(&unblocked, defaulted[i]);
  }
  pthread_sigmask(SIG_UNBLOCK, &unblocked, NULL);
  prctl(PR_SET_DUMPABLE, 0);
  struct rlimit core = {0, 0}, memory;
  setrlimit(RLIMIT_CORE, &core);
  // A component sized in gigabytes fails here (and aborts the child), not in the host's RAM.
  size_t mapped = mapped_bytes();
  if (mapped > 0 && getrlimit(RLIMIT_AS, &memory) == 0) {
    rlim_t limit = (rlim_t)(mapped + ((size_t)3 << 29));  // 1.5 GiB more than mapped
    if (memory.rlim_max == RLIM_INFINITY || limit < memory.rlim_max) memory.rlim_cur = limit;
    setrlimit(RLIMIT_AS, &memory);
  }
  alarm(30);
  TessBaseAPI *api = TessBaseAPICreate();
  TessBaseAPISetVariable(api, "debug_file", "/dev/null");
  if (TessBaseAPIInit2(api, datapath, languages, (TessOcrEngineMode)oem) == 0) {
    int width = 0, height = 0;
    unsigned char *sample = sample_text(&width, &height);
    if (sample != NULL) {  // a recognition too: some damage is read only then
      TessBaseAPISetImage(api, sample, width, height, 1, width);
      TessBaseAPIRecognize(api, NULL);
    }
    char loaded = 1;
    while (write(report, &loaded, 1) < 0 && errno == EINTR) {
    }
    _exit(0);
  }
  _exit(1);
}

/// Check 2: a test load in a forked child, while no engine of this process is being created or
/// ended (Tesseract's shared tables are not locked by another thread at the fork). A clean
/// refusal by Tesseract passes when `refusal_passes` (the caller's own load meets it the same
/// way).
static int probe(const char *datapath, const char *languages, int oem, const probe_key *key,
                 int refusal_passes, char *message, size_t size) {
  probe_verdict verdict;
  if (recall(key, &verdict))
    return verdict.passed ? DEX_OCR_OK : refuse(message, size, languages, verdict.why);
  verdict = (probe_verdict){.key = *key};
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    return refuse(message, size, languages, "its test load could not start");
  dex_ocr_lifecycle_lock();
  fflush(NULL);  // else output the parent has buffered would be written twice
  pid_t child = fork();
  if (child == 0) probe_child(datapath, languages, oem, report[1]);
  close(report[1]);
  char loaded = 0;
  ssize_t got = 0;
  if (child > 0) {
    do got = read(report[0], &loaded, 1);  // until the child writes or ends
    while (got < 0 && errno == EINTR);
  }
  close(report[0]);
  int status = 0, reaped = 0;
  if (child > 0) {
    while ((reaped = waitpid(child, &status, 0) < 0 ? -1 : 1) < 0 && errno == EINTR) {
    }
  }
  dex_ocr_lifecycle_unlock();
  if (child < 0) return refuse(message, size, languages, "its test load could not start");
  // A host that reaps its children itself (SIGCHLD ignored) leaves only the report.
  int passed = got == 1 && loaded == 1;
  int timed_out = reaped > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
  if (passed || (reaped > 0 && refusal_passes && WIFEXITED(status) && WEXITSTATUS(status) == 1)) {
    verdict.passed = 1;
  } else if (timed_out) {
    snprintf(verdict.why, sizeof verdict.why, "loading it took over 30 s");
  } else if (reaped > 0 && WIFSIGNALED(status)) {
    snprintf(verdict.why, sizeof verdict.why, "loading it crashed Tesseract (%s)",
             strsignal(WTERMSIG(status)));
  } else {
    snprintf(verdict.why, sizeof verdict.why, "Tesseract refused it");
  }
  if (!timed_out) keep(&verdict);
  return verdict.passed ? DEX_OCR_OK : refuse(message, size, languages, verdict.why);
}

#endif

int dex_traineddata_check(const char *datapath, const char *languages, int oem,
                          int refusal_passes, char *message, size_t size) {
  // Only the names the Swift side allows reach here (letters, digits, "_", joined by "+").
  char names[MAX_LANGUAGES * 65];
  if (snprintf(names, sizeof names, "%s", languages) >= (int)sizeof names)
    return refuse(message, size, languages, "the language list is too long");
  int count = 0;
  struct stat identities[MAX_LANGUAGES];
  char *saved = NULL;
  for (char *name = strtok_r(names, "+", &saved); name != NULL; name = strtok_r(NULL, "+", &saved)) {
    if (count == MAX_LANGUAGES) return refuse(message, size, languages, "over 16 languages");
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s.traineddata", datapath, name) >= (int)sizeof path)
      return refuse(message, size, name, "its path is too long");
    int status = check_container(path, name, &identities[count], message, size);
    if (status != DEX_OCR_OK) return status;
    count++;
  }
#ifdef __linux__
  probe_key key = {.count = count, .oem = oem};
  for (int i = 0; i < count; i++) {
    key.device[i] = identities[i].st_dev;
    key.inode[i] = identities[i].st_ino;
    key.size[i] = identities[i].st_size;
    key.modified[i] = identities[i].st_mtim;
  }
  return probe(datapath, languages, oem, &key, refusal_passes, message, size);
#else
  (void)refusal_passes;
  return DEX_OCR_OK;
#endif
}
