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
