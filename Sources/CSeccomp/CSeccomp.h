// System libseccomp (Debian libseccomp-dev): the decode worker's system-call filter
// (Sources/CDexWorkerSandbox), linked into dex-decode-worker only.
#include <seccomp.h>
