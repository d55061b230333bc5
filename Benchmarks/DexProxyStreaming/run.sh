#!/usr/bin/env bash
# Streamed against whole identification replies through the real dex-proxy and the SDK client
# (dex-proxy-streaming-bench, release build): a stub model writes a 300-token entry at 40
# tokens/s, name first; prints the median time to the name and to the whole entry, streamed
# and not, in one run, with the largest resident set of each mode. Target: the name in under a
# third of the whole reply's time, memory flat.
#   Benchmarks/DexProxyStreaming/run.sh [rounds (5)] [tokens per second (40)]
# DEX_BENCH_CONFIGURATION=debug builds in debug into the repository's shared .build, as CI
# builds the benchmarks (the timings are the model's pacing, not CPU; Benchmarks/HISTORY.md's
# figures were measured so).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CONFIGURATION="${DEX_BENCH_CONFIGURATION:-release}"
SCRATCH="$ROOT/Benchmarks/.build"
[[ "$CONFIGURATION" == debug ]] && SCRATCH="$ROOT/.build"
flock /tmp/dexkit-build.lock swift build -c "$CONFIGURATION" --package-path "$ROOT/Benchmarks" \
  --scratch-path "$SCRATCH" --product dex-proxy-streaming-bench >/dev/null
"$SCRATCH/$CONFIGURATION/dex-proxy-streaming-bench" "${1:-5}" "${2:-40}"
