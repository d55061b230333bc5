// XNNPACK's subgraph API, the pthreadpool it threads through and cpuinfo (Debian: libxnnpack-dev,
// libpthreadpool-dev, libcpuinfo-dev). No code of ours: the engine calls the C API directly.
#include <cpuinfo.h>
#include <pthreadpool.h>
#include <xnnpack.h>
