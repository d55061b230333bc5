// XNNPACK's subgraph API and the pthreadpool it threads through (Debian: libxnnpack-dev,
// libpthreadpool-dev, libcpuinfo-dev). No code of ours: the engine calls the C API directly.
#include <pthreadpool.h>
#include <xnnpack.h>
