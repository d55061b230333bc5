#define _GNU_SOURCE
#include "CPixScanShim.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

int cpixscan_rename_noreplace(const char *source, const char *target) {
#if defined(__linux__)
#ifdef SYS_renameat2
  return (int)syscall(SYS_renameat2, AT_FDCWD, source, AT_FDCWD, target, 1u /* RENAME_NOREPLACE */);
#else
  errno = ENOSYS;
  return -1;
#endif
#elif defined(__APPLE__)
  return renamex_np(source, target, RENAME_EXCL);
#else
  errno = ENOSYS;
  return -1;
#endif
}

#if defined(__linux__)
#include <linux/openat2.h>
#endif

int cpixscan_openat2_beneath(int directory, const char *path, int flags) {
#if defined(__linux__) && defined(SYS_openat2)
  struct open_how how = {0};
  how.flags = (unsigned long long)(unsigned)flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
#else
  (void)directory;
  (void)path;
  (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

int cpixscan_renameat_noreplace(
    int source_directory, const char *source, int target_directory, const char *target) {
#if defined(__linux__)
#ifdef SYS_renameat2
  return (int)syscall(
      SYS_renameat2, source_directory, source, target_directory, target,
      1u /* RENAME_NOREPLACE */);
#else
  errno = ENOSYS;
  return -1;
#endif
#elif defined(__APPLE__)
  return renameatx_np(source_directory, source, target_directory, target, RENAME_EXCL);
#else
  errno = ENOSYS;
  return -1;
#endif
}
