// CDexImageShim: process helpers for isolated decoding; see include/CDexProcess.h.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
#define _GNU_SOURCE
#include "CDexProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <libheif/heif.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)  // closefrom_np, close_range

int dex_worker_spawn(const char *path, char *const argv[], char *const envp[], int channel,
                     pid_t *pid) {
  if (path == NULL || argv == NULL || envp == NULL || pid == NULL || channel < 0) return EINVAL;
  // A channel among 0-2 would be replaced by /dev/null below: move it up first.
  int moved = -1;
  if (channel <= 2) {
    moved = fcntl(channel, F_DUPFD_CLOEXEC, 3);
    if (moved < 0) return errno;
    channel = moved;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  int status = posix_spawn_file_actions_init(&actions);
  if (status != 0) goto done_moved;
  status = posix_spawnattr_init(&attributes);
  if (status != 0) goto done_actions;
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  if ((status = posix_spawn_file_actions_adddup2(&actions, channel, 0)) != 0 ||
      (status = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)) != 0 ||
      (status = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)) != 0 ||
      (status = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) != 0 ||
      (status = posix_spawnattr_setsigdefault(&attributes, &all)) != 0 ||
      (status = posix_spawnattr_setsigmask(&attributes, &none)) != 0 ||
      (status = posix_spawnattr_setflags(
           &attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSID)) != 0)
    goto done_attributes;
  status = posix_spawn(pid, path, &actions, &attributes, argv, envp);
done_attributes:
  posix_spawnattr_destroy(&attributes);
done_actions:
  posix_spawn_file_actions_destroy(&actions);
done_moved:
  if (moved >= 0) close(moved);
  return status;
}

static int limit(int resource, rlim_t value) {
  struct rlimit bound = {value, value};
  return setrlimit(resource, &bound) == 0 ? 0 : errno;
}

int dex_worker_limit(pid_t pid, uint64_t address_space_bytes, uint64_t cpu_seconds) {
  const struct rlimit memory = {address_space_bytes, address_space_bytes},
                      cpu = {cpu_seconds, cpu_seconds}, core = {0, 0};
  if (prlimit(pid, RLIMIT_AS, &memory, NULL) != 0 || prlimit(pid, RLIMIT_CPU, &cpu, NULL) != 0 ||
      prlimit(pid, RLIMIT_CORE, &core, NULL) != 0)
    return errno;
  return 0;
}

int dex_worker_confine(uint64_t address_space_bytes, uint64_t cpu_seconds) {
  // posix_spawn closed them already; a worker started some other way is confined all the same.
  if (close_range(3, ~0U, 0) != 0)
    for (int fd = 3; fd < 65536; fd++) close(fd);
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return errno;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  // libheif loads its codec plugins here (dlopen opens files): after RLIMIT_NOFILE it could not.
  (void)heif_init(NULL);
  int status;
  if ((status = limit(RLIMIT_CORE, 0)) != 0 || (status = limit(RLIMIT_FSIZE, 0)) != 0 ||
      (status = limit(RLIMIT_NOFILE, 3)) != 0 ||
      (status = limit(RLIMIT_AS, (rlim_t)address_space_bytes)) != 0 ||
      (status = limit(RLIMIT_CPU, (rlim_t)cpu_seconds)) != 0)
    return status;
  return 0;
}

int dex_worker_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

int dex_worker_set_cpu_budget(uint64_t cpu_seconds) {
  struct rusage usage;
  struct rlimit bound;
  if (getrusage(RUSAGE_SELF, &usage) != 0 || getrlimit(RLIMIT_CPU, &bound) != 0) return errno;
  rlim_t used = (rlim_t)usage.ru_utime.tv_sec + (rlim_t)usage.ru_stime.tv_sec + 1;
  rlim_t wanted = used + (rlim_t)cpu_seconds;
  bound.rlim_cur = bound.rlim_max != RLIM_INFINITY && wanted > bound.rlim_max ? bound.rlim_max
                                                                                : wanted;
  return setrlimit(RLIMIT_CPU, &bound) == 0 ? 0 : errno;
}

#else  // Android's bionic and older glibc: isolated decoding is not offered there.

int dex_worker_spawn(const char *path, char *const argv[], char *const envp[], int channel,
                     pid_t *pid) {
  (void)path, (void)argv, (void)envp, (void)channel, (void)pid;
  return ENOSYS;
}

int dex_worker_limit(pid_t pid, uint64_t address_space_bytes, uint64_t cpu_seconds) {
  (void)pid, (void)address_space_bytes, (void)cpu_seconds;
  return ENOSYS;
}

int dex_worker_confine(uint64_t address_space_bytes, uint64_t cpu_seconds) {
  (void)address_space_bytes, (void)cpu_seconds;
  return ENOSYS;
}

int dex_worker_dumpable(void) { return -1; }

int dex_worker_set_cpu_budget(uint64_t cpu_seconds) {
  (void)cpu_seconds;
  return ENOSYS;
}

#endif
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
