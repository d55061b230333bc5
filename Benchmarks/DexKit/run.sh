#!/usr/bin/env bash
# DexScanner end to end on real 12 MP photos (release build): bytes → local guess and
# bytes → final result (cloud pass over loopback HTTP: signed client → dex-proxy → stub
# upstream, all in-process on 127.0.0.1), median and p95. Target: local guess under
# 100 ms median on a 2-core machine.
#
#   Benchmarks/DexKit/run.sh [photo] [runs]
#
# Without a photo it runs two encodings of the same 12.2 MP Debian wallpaper ("sunset", Aitzol
# Berasategi, CC-BY-4.0, via Benchmarks/DexImaging/fetch-photos.sh):
#   camera       re-encoded the way a phone camera writes it (baseline, 4:2:0, quality 92);
#   progressive  the wallpaper as Debian ships it (progressive, 4:2:2), the slow case: libjpeg
#                must entropy-decode every scan into a whole-image buffer before the first row.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=Benchmarks/.build/release/dex-scan-benchmark
runs="${2:-30}"
flock /tmp/dexkit-swift.lock swift build -c release --package-path Benchmarks \
  --product dex-scan-benchmark
if [ -n "${1:-}" ]; then
  echo "photo: $1"
  "$bin" "$1" "$runs"
  exit 0
fi
bash Benchmarks/DexImaging/fetch-photos.sh >/dev/null
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow  # re-encodes the camera photo
progressive=/tmp/dex-imaging-bench/photos/sunset_by_Aitzol_Berasategi.jpg  # 4272 x 2848
camera=/tmp/dex-imaging-bench/sunset-camera-12mp.jpg
if [ ! -s "$camera" ]; then
  python3 -c 'import sys; from PIL import Image
Image.open(sys.argv[1]).save(sys.argv[2], quality=92, subsampling=2, progressive=False)' \
    "$progressive" "$camera"
fi
for kind in camera progressive; do
  photo="$camera"
  [ "$kind" = progressive ] && photo="$progressive"
  printf '%-12s ' "$kind"
  "$bin" "$photo" "$runs"
done
