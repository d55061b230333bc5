// The decode worker's system-call filter (Linux, libseccomp): linked into dex-decode-worker
// only, never into a host that links DexImaging.
#ifndef CDEXWORKERSANDBOX_H
#define CDEXWORKERSANDBOX_H

// Empty unless on Linux with the SystemImageCodecs trait: Package.swift defines
// DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS for this target's C only then. Swift's importer does not see
// that define; it is recognised by __swift__, and Swift imports this module only under
// `os(Linux) && SystemImageCodecs`.
#if defined(__linux__) && (defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS) || defined(__swift__))

#ifdef __cplusplus
extern "C" {
#endif

/// Installs a deny-by-default seccomp filter on the calling process (every thread, and every
/// thread started later), the worker's last step of set-up before it reads a request. Allowed:
/// what decoding needs once the worker is confined (reading and writing its socket, descriptor
/// 0, and /dev/null on 1 and 2; anonymous memory that is never executable; threads of its own
/// process; futexes, clocks, signals to itself, its own resource limits; exit). Opening,
/// probing or creating files, sockets, pipes and other descriptors fails with EPERM (a library
/// that probes a file, like glibc counting CPUs through /sys, falls back); every other system
/// call (exec, a new process, ptrace, a signal to another process, ...) ends the process with
/// SIGSYS. Needs PR_SET_NO_NEW_PRIVS (dex_worker_confine sets it). 0, or a negative errno value.
int dex_worker_filter_system_calls(void);

#ifdef __cplusplus
}
#endif

#endif  // defined(__linux__) && (defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS) || defined(__swift__))
#endif
