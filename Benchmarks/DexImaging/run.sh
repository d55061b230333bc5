#!/usr/bin/env bash
# Builds DexImaging's benchmark in release (under the shared build lock), fetches the photos and
# runs ours, Pillow and libvips side by side under `nice -n 10`.
#
#   Benchmarks/DexImaging/run.sh
# Needs: pip install pillow pyvips numpy; apt-get install libvips42 (or pip pyvips-binary).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${DEX_IMAGING_BENCH_CACHE:-/tmp/dex-imaging-bench}"
flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
  --product DexImagingBenchmark
"$ROOT/Benchmarks/DexImaging/fetch-photos.sh" "$CACHE"
nice -n 10 python3 "$ROOT/Benchmarks/DexImaging/bench.py" "$CACHE/photos" \
  "$ROOT/Benchmarks/.build/release/DexImagingBenchmark" "$CACHE/work"
