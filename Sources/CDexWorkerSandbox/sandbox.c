// CDexWorkerSandbox: dex-decode-worker's seccomp filter; see include/CDexWorkerSandbox.h.
//
// The allow-list is what the worker was seen to call after its set-up (strace -f over every
// format fixture of Tests/DexImagingTests/Resources decoded through the worker, 2026-11-28:
// poll, recvfrom and sendto on descriptor 0, futex, rt_sigprocmask, rt_sigaction, prlimit64,
// getrusage, anonymous mmap/mprotect/munmap/madvise/brk, clone3 then clone for threads,
// set_robust_list, rseq, sched_getaffinity, prctl(PR_SET_NAME) from dav1d, exit; nothing was
// refused), plus what glibc and the Swift runtime call on their error paths (writing to
// /dev/null, raising a signal, exiting). The failing action is chosen per call: EPERM where a library may try a
// file or a descriptor and cope with a refusal (and where a refusal is easiest to diagnose),
// SIGSYS (SECCOMP_RET_KILL_PROCESS) for everything else, the default.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
#define _GNU_SOURCE
#include "CDexWorkerSandbox.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <seccomp.h>

/// Adds `count` rules with `action` and no argument condition; 0 or a negative errno value.
static int add_all(scmp_filter_ctx filter, uint32_t action, const int *calls, size_t count) {
  int status = 0;
  for (size_t i = 0; status == 0 && i < count; i++)
    status = seccomp_rule_add(filter, action, calls[i], 0);
  return status;
}

int dex_worker_filter_system_calls(void) {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_KILL_PROCESS);
  if (filter == NULL) return -ENOMEM;
  // The worker runs one thread here; synchronising anyway keeps a thread a library might have
  // started from escaping the filter (loading fails rather than leave one unfiltered).
  int status = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);

  // Allowed with any arguments: memory, thread synchronisation, time, exits, own signal state.
  static const int anyArguments[] = {
      SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
      SCMP_SYS(futex), SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity),
      SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(gettid), SCMP_SYS(getpid),
      SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday),
      SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep), SCMP_SYS(getrusage),
      SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
      SCMP_SYS(rt_sigaction), SCMP_SYS(sigaltstack), SCMP_SYS(restart_syscall),
      SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(getrandom),
  };
  if (status == 0)
    status = add_all(filter, SCMP_ACT_ALLOW, anyArguments,
                     sizeof anyArguments / sizeof anyArguments[0]);

  // Refused with EPERM: everything that opens, creates or probes a file or a descriptor.
  static const int filesAndNetwork[] = {
      SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(creat),
      SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at),
      SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
      SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(readlink),
      SCMP_SYS(readlinkat), SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(getdents64),
      SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rmdir),
      SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(link),
      SCMP_SYS(linkat), SCMP_SYS(symlink), SCMP_SYS(symlinkat), SCMP_SYS(truncate),
      SCMP_SYS(chmod), SCMP_SYS(fchmodat), SCMP_SYS(chown), SCMP_SYS(fchownat),
      SCMP_SYS(lchown), SCMP_SYS(utimensat), SCMP_SYS(mknod), SCMP_SYS(mknodat),
      SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
      SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(pipe), SCMP_SYS(pipe2),
      SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(memfd_create),
      SCMP_SYS(eventfd), SCMP_SYS(eventfd2), SCMP_SYS(ioctl), SCMP_SYS(lseek),
  };
  if (status == 0)
    status = add_all(filter, SCMP_ACT_ERRNO(EPERM), filesAndNetwork,
                     sizeof filesAndNetwork / sizeof filesAndNetwork[0]);

  // The socket to the host (descriptor 0) and /dev/null (1 and 2): nothing else is open.
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(recvfrom), 1, SCMP_A0(SCMP_CMP_EQ, 0));
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(sendto), 1, SCMP_A0(SCMP_CMP_EQ, 0));
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(read), 1, SCMP_A0(SCMP_CMP_EQ, 0));
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_LE, 2));
  // Anonymous memory that is never executable: every library was mapped before the filter.
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 2,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0),
                              SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, MAP_ANONYMOUS));
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  // Threads of this process (libheif's, dav1d's and libde265's), never a new process. clone3's
  // flags sit in memory a filter cannot read, so it answers ENOSYS and glibc falls back to
  // clone, whose flags it can.
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Signals to itself only (abort, raise), and its own resource limits (the per-request CPU
  // budget; an unprivileged process can only lower a hard limit).
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                              SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
  if (status == 0)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1,
                              SCMP_A0(SCMP_CMP_EQ, 0));
  // Naming its own threads (dav1d does) and reading its own state (the confinement test hook
  // reads PR_GET_DUMPABLE); any other prctl ends the worker.
  static const int prctlAllowed[] = {PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE};
  for (size_t i = 0; status == 0 && i < sizeof prctlAllowed / sizeof prctlAllowed[0]; i++)
    status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
                              SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)prctlAllowed[i]));

  if (status == 0) status = seccomp_load(filter);
  seccomp_release(filter);
  return status;
}

#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
