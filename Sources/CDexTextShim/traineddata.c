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
//    will, under an address-space limit and an alarm, and exits; the parent loads only data
//    whose test load survived. What passed is remembered by the files' identity (device, inode,
//    size, modification time) for the life of the process, so it costs one load (about 0.1 s,
//    plus a fork) per language set and data version.
//
// Left: a file changed between the test load and the engine's load, and damage that only
// recognition reaches (a dictionary read out of bounds in the beam search).
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
    snprintf(why, sizeof why, "cannot open %s (%s)", path, strerror(errno));
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

/// One test load that passed: the files' identities, in order.
typedef struct {
  int count;
  int oem;
  dev_t device[MAX_LANGUAGES];
  ino_t inode[MAX_LANGUAGES];
  off_t size[MAX_LANGUAGES];
  struct timespec modified[MAX_LANGUAGES];
} probe_key;

enum { REMEMBERED = 32 };
static probe_key passed[REMEMBERED];
static int passed_count, passed_next;
static pthread_mutex_t passed_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_key(const probe_key *a, const probe_key *b) {
  if (a->count != b->count || a->oem != b->oem) return 0;
  for (int i = 0; i < a->count; i++)
    if (a->device[i] != b->device[i] || a->inode[i] != b->inode[i] || a->size[i] != b->size[i] ||
        a->modified[i].tv_sec != b->modified[i].tv_sec ||
        a->modified[i].tv_nsec != b->modified[i].tv_nsec)
      return 0;
  return 1;
}

static int remembered(const probe_key *key) {
  pthread_mutex_lock(&passed_lock);
  int found = 0;
  for (int i = 0; i < passed_count && !found; i++) found = same_key(&passed[i], key);
  pthread_mutex_unlock(&passed_lock);
  return found;
}

static void remember(const probe_key *key) {
  pthread_mutex_lock(&passed_lock);
  passed[passed_next] = *key;
  passed_next = (passed_next + 1) % REMEMBERED;
  if (passed_count < REMEMBERED) passed_count++;
  pthread_mutex_unlock(&passed_lock);
}

/// The bytes the process maps now (the child starts with the same).
static size_t mapped_bytes(void) {
  FILE *file = fopen("/proc/self/statm", "re");
  unsigned long pages = 0;
  if (file != NULL) {
    if (fscanf(file, "%lu", &pages) != 1) pages = 0;
    fclose(file);
  }
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/// The child: loads the data as the engine will, then leaves without running anything of the
/// parent's (no atexit handlers, no stdio flush).
static void probe_child(const char *datapath, const char *languages, int oem, size_t limit) {
  // Signals as the system defaults them: a host's crash reporter must not run here, and the
  // alarm must end a child that hangs.
  const int defaulted[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM};
  sigset_t unblocked;
  sigemptyset(&unblocked);
  for (size_t i = 0; i < sizeof defaulted / sizeof defaulted[0]; i++) {
    signal(defaulted[i], SIG_DFL);
    sigaddset(&unblocked, defaulted[i]);
  }
  pthread_sigmask(SIG_UNBLOCK, &unblocked, NULL);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  struct rlimit memory = {limit, limit}, core = {0, 0};
  setrlimit(RLIMIT_AS, &memory);  // a component sized in gigabytes fails here, not in RAM
  setrlimit(RLIMIT_CORE, &core);
  alarm(30);
  TessBaseAPI *api = TessBaseAPICreate();
  if (api == NULL) _exit(3);
  TessBaseAPISetVariable(api, "debug_file", "/dev/null");
  int loaded = TessBaseAPIInit2(api, datapath, languages, (TessOcrEngineMode)oem);
  _exit(loaded == 0 ? 0 : 1);
}

/// Check 2: a test load in a forked child.
static int probe(const char *datapath, const char *languages, int oem, const probe_key *key,
                 char *message, size_t size) {
  if (remembered(key)) return DEX_OCR_OK;
  size_t limit = mapped_bytes() + ((size_t)3 << 29);  // what it maps now and 1.5 GiB more
  fflush(NULL);  // else output the parent has buffered would be written twice
  pid_t child = fork();
  if (child < 0) return refuse(message, size, languages, "its test load could not start");
  if (child == 0) probe_child(datapath, languages, oem, limit);
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return refuse(message, size, languages, "its test load was lost");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    remember(key);
    return DEX_OCR_OK;
  }
  char why[160];
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    snprintf(why, sizeof why, "loading it took over 30 s");
  else if (WIFSIGNALED(status))
    snprintf(why, sizeof why, "loading it crashed Tesseract (%s)", strsignal(WTERMSIG(status)));
  else if (WEXITSTATUS(status) == 3)
    snprintf(why, sizeof why, "loading it ran out of memory");
  else
    snprintf(why, sizeof why, "Tesseract refused it");
  return refuse(message, size, languages, why);
}

#endif

int dex_traineddata_check(const char *datapath, const char *languages, int oem, char *message,
                          size_t size) {
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
  return probe(datapath, languages, oem, &key, message, size);
#else
  return DEX_OCR_OK;
#endif
}
