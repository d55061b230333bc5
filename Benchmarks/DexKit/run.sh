#!/usr/bin/env bash
# DexScanner end to end on a real 12 MP photo (release build): bytes → local guess and
# bytes → final result, median and p95. Target: local guess under 100 ms median.
# Photos come from Debian wallpaper packages via Benchmarks/DexImaging/fetch-photos.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
photo="${1:-}"
if [ -z "$photo" ]; then
  bash Benchmarks/DexImaging/fetch-photos.sh >/dev/null
  photo=/tmp/dex-imaging-bench/photos/sunset_by_Aitzol_Berasategi.jpg  # 4272 x 2848, 12.2 MP
fi
swift build -c release --product dex-scan-benchmark
echo "photo: $photo"
.build/release/dex-scan-benchmark "$photo" "${2:-30}"
