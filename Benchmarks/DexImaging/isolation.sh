#!/usr/bin/env bash
# Isolated against in-process decoding: builds dex-isolation-bench and dex-decode-worker in
# release into one folder (under the shared build lock), makes a 12 MP JPEG and a 12 MP HEIC,
# and downscales each as a scan does, both ways, paired in one run (medians; the overhead is
# the median of the per-round ratios). Prints the processor too.
#
#   Benchmarks/DexImaging/isolation.sh [rounds]     (default 15)
#
# Photo: "Evening Glow" (Ian Hex), the 12 MP baseline JPEG fetch-photos.sh makes from the Debian
# package plasma-workspace-wallpapers (LGPL-3.0), and the same pixels as an 8-bit HEIC written
# by heic-encode.c (libheif's x265 encoder, quality 80).
# Needs: pip install pillow; apt-get install libheif-dev (with its HEVC encoder).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${DEX_IMAGING_BENCH_CACHE:-/tmp/dex-imaging-bench}"
ROUNDS="${1:-15}"
for product in dex-isolation-bench dex-decode-worker; do
  flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
    --product "$product" >/dev/null
done
BIN="$(swift build -c release --package-path "$ROOT/Benchmarks" --show-bin-path)"
"$ROOT/Benchmarks/DexImaging/fetch-photos.sh" "$CACHE" >/dev/null
JPEG="$CACHE/photos/EveningGlow-12MP.jpg"
HEIC="$CACHE/isolation/EveningGlow-12MP.heic"
mkdir -p "$CACHE/isolation"
if [ ! -f "$HEIC" ]; then
  cc -O2 "$ROOT/Benchmarks/DexImaging/heic-encode.c" $(pkg-config --cflags --libs libheif) \
    -o "$CACHE/isolation/heic-encode"
  size=$(python3 - "$JPEG" "$CACHE/isolation/photo.rgb" <<'PY'
import sys
from PIL import Image
with Image.open(sys.argv[1]) as im:
    rgb = im.convert("RGB")
    open(sys.argv[2], "wb").write(rgb.tobytes())
    print(rgb.width, rgb.height)
PY
)
  "$CACHE/isolation/heic-encode" $size "$CACHE/isolation/photo.rgb" "$HEIC"
  rm -f "$CACHE/isolation/photo.rgb"
fi
lscpu | sed -n 's/^Model name: *//p'
echo "libheif $(pkg-config --modversion libheif); $(nproc) cores"
nice -n 10 "$BIN/dex-isolation-bench" --rounds "$ROUNDS" "$JPEG" "$HEIC"
