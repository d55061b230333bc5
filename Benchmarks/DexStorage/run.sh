#!/usr/bin/env bash
# Runs the DexStorage benchmark: DexStore beside a raw sqlite3 C API baseline, in one run.
# Usage: Benchmarks/DexStorage/run.sh [--quick] [--dir DIR]
# Prints medians, ours/baseline ratios and each side's peak RSS; /usr/bin/time -v adds the
# driver's own peak. The build takes the shared Swift lock; the run is niced.
set -euo pipefail
cd "$(dirname "$0")/../.."
flock /tmp/dexkit-build.lock swift build -c release --package-path Benchmarks \
  --product dex-storage-bench
BIN=Benchmarks/.build/release/dex-storage-bench
if [ -x /usr/bin/time ]; then
  nice -n 10 /usr/bin/time -v "$BIN" "$@" 2> >(grep -E "Maximum resident|Elapsed" >&2)
else
  nice -n 10 "$BIN" "$@"
fi
