// PixScan's few Linux calls that Swift's Glibc module does not show (they need _GNU_SOURCE).
#ifndef CPIXSCANSHIM_H
#define CPIXSCANSHIM_H

/// rename(2) that fails with EEXIST instead of replacing `target` (renameat2 with
/// RENAME_NOREPLACE on Linux, renamex_np with RENAME_EXCL on Darwin); -1 and errno on failure
/// (EINVAL or ENOSYS where the filesystem or kernel cannot do it).
int cpixscan_rename_noreplace(const char *source, const char *target);

/// openat2(2) of `path` beneath the directory `directory` with RESOLVE_BENEATH,
/// RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS: no `..` out of it, no symbolic link at any
/// component. -1 and errno on failure; ENOSYS where the kernel (before 5.6), a seccomp filter or
/// the platform does not offer it (the caller then walks the path one component at a time).
int cpixscan_openat2_beneath(int directory, const char *path, int flags);

/// renameat2(2) with RENAME_NOREPLACE (renameatx_np with RENAME_EXCL on Darwin): `source` in
/// `source_directory` to `target` in `target_directory`, failing with EEXIST instead of
/// replacing. -1 and errno on failure.
int cpixscan_renameat_noreplace(
    int source_directory, const char *source, int target_directory, const char *target);

#endif
