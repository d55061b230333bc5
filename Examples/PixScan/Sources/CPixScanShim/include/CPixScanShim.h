// PixScan's few Linux calls that Swift's Glibc module does not show (they need _GNU_SOURCE).
#ifndef CPIXSCANSHIM_H
#define CPIXSCANSHIM_H

/// rename(2) that fails with EEXIST instead of replacing `target` (renameat2 with
/// RENAME_NOREPLACE on Linux, renamex_np with RENAME_EXCL on Darwin); -1 and errno on failure
/// (EINVAL or ENOSYS where the filesystem or kernel cannot do it).
int cpixscan_rename_noreplace(const char *source, const char *target);

#endif
