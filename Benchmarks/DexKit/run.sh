#!/usr/bin/env bash
# DexScanner end to end on real 12 MP photos (release build): bytes → local guess and
# bytes → final result (cloud pass over loopback HTTP: signed client → dex-proxy → stub
# upstream, all in-process on 127.0.0.1), median and p95. Target: local guess under
# 100 ms median on a 2-core machine.
#
#   Benchmarks/DexKit/run.sh [photo] [runs]
#
# Without a photo it runs two encodings of the same 12.2 MP photo ("Evening Glow", Ian Hex,
# LGPL-3.0, from Debian's plasma-workspace-wallpapers, upscaled to 4032 x 3024 by
# Benchmarks/DexImaging/fetch-photos.sh):
#   camera       the way a phone camera writes it (baseline, 4:2:0, quality 92);
#   progressive  progressive, 4:2:2, as wallpapers are often shipped, the slow case: libjpeg
#                must entropy-decode every scan into a whole-image buffer before the first row.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=Benchmarks/.build/release/dex-scan-benchmark
runs="${2:-30}"
flock /tmp/dexkit-build.lock swift build -c release --package-path Benchmarks \
  --product dex-scan-benchmark
if [ -n "${1:-}" ]; then
  echo "photo: $1"
  "$bin" "$1" "$runs"
  exit 0
fi
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow  # fetch-photos.sh uses it
bash Benchmarks/DexImaging/fetch-photos.sh >/dev/null
progressive=/tmp/dex-imaging-bench/photos/EveningGlow-12MP-progressive.jpg  # 4032 x 3024
camera=/tmp/dex-imaging-bench/photos/EveningGlow-12MP.jpg
for kind in camera progressive; do
  photo="$camera"
  [ "$kind" = progressive ] && photo="$progressive"
  printf '%-12s ' "$kind"
  "$bin" "$photo" "$runs"
done
