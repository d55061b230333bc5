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
// 2. On Linux, a test load in a process of its own: dex-traineddata-probe (an executable product
//    of this package that the host ships beside its binary), started with posix_spawn + exec,
//    never a fork of the host. It loads exactly what the engine will and reads a line of
//    built-in text with it, under an address-space limit, a CPU-time limit and an alarm, and
//    this process kills it at its own deadline too; the host loads only data whose test load
//    survived. The verdict is remembered by the files' identity (device, inode, size,
//    modification time) for the life of the process, so it costs one load (about 0.1 s, plus
//    an exec) per language set and data version. No lock of this process is held meanwhile.
//
//    It used to be a fork() without exec, holding the engine lifecycle lock until the child
//    ended: a child forked by a thread that had run a recognition before waited for ever for
//    libgomp's worker threads (Tesseract's LSTM runs OpenMP regions; the pool's threads are not
//    copied by fork), until its 30 s alarm, and every engine creation and end in the host waited
//    for the lock meanwhile; a timed-out verdict is not kept, so the next engine probed again.
//    Which dispatch thread made the engine decided it: the stall of issue 38 (14 recognition
//    tests timed out together on a second run of the suite).
//
// Left: a file changed between the test load and the engine's load, and damage that only some
// other text reaches in recognition (a dictionary entry the sample line does not touch).
#if defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)
#define _GNU_SOURCE
#include "traineddata.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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
  return DEX_STATUS_UNAVAILABLE;
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
  int status = DEX_STATUS_OK;
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
  if (status == DEX_STATUS_OK) {
    count = read32(header, 0);
    if (count > MAX_ENTRIES) count = read32(header, swapped = 1);
    size_t table = 4 + 8 * (size_t)count;
    if (count == 0 || count > MAX_ENTRIES || (int64_t)table > info.st_size ||
        !read_at(fd, header + 4, table - 4, 4))
      status = refuse(message, size, language, "not a traineddata file (its entry table)");
  }
  close(fd);
  if (status != DEX_STATUS_OK) return status;

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
  return DEX_STATUS_OK;
}

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

/// Waits up to `milliseconds` for one byte on `fd`; 1 with the byte, 0 at end of file, -1 on
/// the deadline.
static int read_byte(int fd, char *byte, int milliseconds) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long spent = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
    if (spent >= milliseconds) return -1;
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    int ready = poll(&entry, 1, (int)(milliseconds - spent));
    if (ready < 0 && errno != EINTR) return 0;
    if (ready <= 0) continue;
    ssize_t got = read(fd, byte, 1);
    if (got < 0 && errno == EINTR) continue;
    return got == 1 ? 1 : 0;
  }
}

/// Starts the probe with descriptor 3 the write end of `report`; 0 or an errno value.
static int spawn_probe(const char *probe_path, const char *datapath, const char *languages,
                       int oem, int report, pid_t *child) {
  char mode[16];
  snprintf(mode, sizeof mode, "%d", oem);
  char *const argv[] = {(char *)probe_path, (char *)datapath, (char *)languages, mode, NULL};
  char *const envp[] = {NULL};
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  int status = posix_spawn_file_actions_init(&actions);
  if (status != 0) return status;
  if ((status = posix_spawnattr_init(&attributes)) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return status;
  }
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  if ((status = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
      (status = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)) == 0 &&
      (status = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)) == 0 &&
      (status = posix_spawn_file_actions_adddup2(&actions, report, 3)) == 0 &&
      (status = posix_spawn_file_actions_addclosefrom_np(&actions, 4)) == 0 &&
      (status = posix_spawnattr_setsigdefault(&attributes, &all)) == 0 &&
      (status = posix_spawnattr_setsigmask(&attributes, &none)) == 0 &&
      (status = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF |
                                                          POSIX_SPAWN_SETSIGMASK |
                                                          POSIX_SPAWN_SETSID)) == 0)
    status = posix_spawn(child, probe_path, &actions, &attributes, argv, envp);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return status;
}

/// Check 2: a test load by the probe executable. A clean refusal by Tesseract passes when
/// `refusal_passes` (the caller's own load meets it the same way).
static int probe(const char *probe_path, const char *datapath, const char *languages, int oem,
                 const probe_key *key, int refusal_passes, char *message, size_t size) {
  enum { DEADLINE_MS = 35000 };  // the probe's own alarm and CPU limit are 30 s
  probe_verdict verdict;
  if (recall(key, &verdict))
    return verdict.passed ? DEX_STATUS_OK : refuse(message, size, languages, verdict.why);
  if (probe_path == NULL)
    return refuse(message, size, languages,
                  "its test load needs dex-traineddata-probe beside the executable");
  verdict = (probe_verdict){.key = *key};
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    return refuse(message, size, languages, "its test load could not start");
  pid_t child = -1;
  int spawned = spawn_probe(probe_path, datapath, languages, oem, report[1], &child);
  close(report[1]);
  char loaded = 0;
  int got = spawned == 0 ? read_byte(report[0], &loaded, DEADLINE_MS) : 0;
  close(report[0]);
  if (spawned != 0) {
    char why[200];
    snprintf(why, sizeof why, "its test load could not start %s (%s)", probe_path,
             strerror(spawned));
    return refuse(message, size, languages, why);
  }
  int timed_out = got < 0;
  if (timed_out) kill(child, SIGKILL);
  int status = 0, reaped = 0;
  while ((reaped = waitpid(child, &status, 0) < 0 ? -1 : 1) < 0 && errno == EINTR) {
  }
  // A host that reaps its children itself (SIGCHLD ignored) leaves only the report.
  int passed = got == 1 && loaded == 1;
  timed_out = timed_out || (reaped > 0 && WIFSIGNALED(status) &&
                            (WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGXCPU));
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
  return verdict.passed ? DEX_STATUS_OK : refuse(message, size, languages, verdict.why);
}

int dex_traineddata_check(const char *probe_path, const char *datapath, const char *languages,
                          int oem, int refusal_passes, char *message, size_t size) {
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
    if (status != DEX_STATUS_OK) return status;
    count++;
  }
  probe_key key = {.count = count, .oem = oem};
  for (int i = 0; i < count; i++) {
    key.device[i] = identities[i].st_dev;
    key.inode[i] = identities[i].st_ino;
    key.size[i] = identities[i].st_size;
    key.modified[i] = identities[i].st_mtim;
  }
  return probe(probe_path, datapath, languages, oem, &key, refusal_passes, message, size);
}
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)
