#!/usr/bin/env bash
# Builds DexImaging's benchmark in release (under the shared build lock) and prints the wall time
# and peak RSS of one downscale of each decode bomb of issues 28 and 38 (see hostile.py).
#
#   Benchmarks/DexImaging/hostile.sh [--reference <older DexImagingBenchmark binary>]
# Needs: python3 and /usr/bin/time (Debian package `time`).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${DEX_IMAGING_HOSTILE_DIR:-/tmp/dex-imaging-hostile}"
flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
  --product DexImagingBenchmark
python3 "$ROOT/Benchmarks/DexImaging/hostile.py" \
  "$ROOT/Benchmarks/.build/release/DexImagingBenchmark" "$WORK" "$@"
