#!/usr/bin/env bash
# HEIC / AVIF / WebP benchmark: builds DexImagingBenchmark in release (under the shared build lock),
# makes the photos and runs ours beside `vips thumbnail` and Pillow (+ pillow-heif) under
# `nice -n 10`.
#
#   Benchmarks/DexImaging/formats.sh
#
# Photos: "Evening Glow" (Ian Hex) and "Fallen Leaf" (Martin Klapetek), 2560 x 1600 JPEGs from the
# Debian package plasma-workspace-wallpapers (LGPL-3.0; `apt-get download`, nothing installed),
# Lanczos-upscaled by vips to 4032 x 3024 (12.2 MP, a phone photo's size; centre crop) and encoded
# by Debian's encoders: heif-enc -q 80 (8-bit and 10-bit HEIC), avifenc -s 8 (AVIF), cwebp -q 80
# (lossy WebP) and cwebp -lossless (lossless WebP).
# Needs: apt-get install libvips-tools libheif-examples libavif-bin webp; pip install pillow
# pillow-heif (optional: the Pillow column says n/a without them).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${DEX_IMAGING_BENCH_CACHE:-/tmp/dex-imaging-bench}/formats"
mkdir -p "$CACHE/photos" "$CACHE/work"
flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
  --product DexImagingBenchmark
(
  cd "$CACHE"
  ls plasma-workspace-wallpapers_*.deb >/dev/null 2>&1 || apt-get download plasma-workspace-wallpapers
  [ -d x ] || dpkg -x plasma-workspace-wallpapers_*.deb x
  for photo in EveningGlow FallenLeaf; do
    src="x/usr/share/wallpapers/$photo/contents/images/2560x1600.jpg"
    big="$CACHE/$photo-12MP.png"
    [ -f "$big" ] || vips thumbnail "$src" "$big" 4032 --height 3024 --size up --crop centre
    [ -f "photos/$photo.heic" ] || heif-enc -q 80 -o "photos/$photo.heic" "$big" >/dev/null
    [ -f "photos/$photo.avif" ] || avifenc -s 8 -j 2 "$big" "photos/$photo.avif" >/dev/null
    [ -f "photos/$photo-lossy.webp" ] || cwebp -quiet -q 80 "$big" -o "photos/$photo-lossy.webp"
  done
  big="$CACHE/EveningGlow-12MP.png"
  if [ ! -f photos/EveningGlow-10bit.heic ]; then
    vips cast "$big" "$CACHE/EveningGlow-12MP-16.v" ushort --shift
    vips copy "$CACHE/EveningGlow-12MP-16.v" "$CACHE/EveningGlow-12MP-16.png" --interpretation rgb16
    heif-enc -q 80 -b 10 -o photos/EveningGlow-10bit.heic "$CACHE/EveningGlow-12MP-16.png" >/dev/null
  fi
  [ -f photos/EveningGlow-lossless.webp ] || cwebp -quiet -lossless -z 3 "$big" -o photos/EveningGlow-lossless.webp
)
nice -n 10 python3 "$ROOT/Benchmarks/DexImaging/formats.py" "$CACHE/photos" \
  "$ROOT/Benchmarks/.build/release/DexImagingBenchmark" "$CACHE/work"
