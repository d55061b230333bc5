// CDexImageShim's process helpers for isolated decoding (Linux): starting a worker with
// posix_spawn + exec (never a fork of the host) and confining the worker once it runs.
#ifndef CDEXPROCESS_H
#define CDEXPROCESS_H

// Empty unless on Linux with the SystemImageCodecs trait: Package.swift defines DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS
// for this target's C only then. Swift's importer does not see that define; it is recognised by
// __swift__, and Swift imports this module only under `os(Linux) && SystemImageCodecs`.
#if defined(__linux__) && (defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS) || defined(__swift__))

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Starts `path` with `argv` and `envp` through posix_spawn (vfork + exec, safe in a
/// multithreaded host): `channel` becomes the child's descriptor 0, descriptors 1 and 2 are
/// /dev/null, every other descriptor is closed, every signal has its default action and none
/// is blocked, and the child leads a session of its own (a terminal's Ctrl-C reaches the host,
/// not the worker). 0 and `*pid`, or an errno value.
int dex_worker_spawn(const char *path, char *const argv[], char *const envp[], int channel,
                     pid_t *pid);

/// Sets the address-space (RLIMIT_AS), CPU-time (RLIMIT_CPU) and core-size (0) limits of the
/// process `pid` (prlimit), hard and soft: the host's own hold on a worker it just started.
/// 0, or an errno value.
int dex_worker_limit(pid_t pid, uint64_t address_space_bytes, uint64_t cpu_seconds);

/// Confines the calling worker before it reads any request: closes every descriptor from 3 up,
/// makes it not dumpable and unable to gain privileges, registers libheif's plugins (they
/// cannot be loaded afterwards), then sets RLIMIT_CORE 0, RLIMIT_FSIZE 0, RLIMIT_NOFILE 3 (no
/// descriptor beyond 0-2 can be opened: no file, socket or pipe), RLIMIT_AS
/// `address_space_bytes` and RLIMIT_CPU `cpu_seconds` (hard and soft). 0, or the errno of the
/// first step that failed.
int dex_worker_confine(uint64_t address_space_bytes, uint64_t cpu_seconds);

/// prctl(PR_GET_DUMPABLE): 0 once the worker is confined (its test hook reports it).
int dex_worker_dumpable(void);

/// Lowers the soft CPU-time limit to `cpu_seconds` beyond the CPU time used so far (never above
/// the hard limit): one request's budget. 0, or an errno value.
int dex_worker_set_cpu_budget(uint64_t cpu_seconds);

#ifdef __cplusplus
}
#endif

#endif  // defined(__linux__) && (defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS) || defined(__swift__))
#endif
