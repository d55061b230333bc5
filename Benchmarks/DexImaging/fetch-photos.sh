#!/usr/bin/env bash
# Makes the benchmark photos from real photos in the Debian package plasma-workspace-wallpapers
# (LGPL-3.0, each wallpaper's metadata.json; `apt-get download` + `dpkg -x` into a cache
# directory, nothing is installed):
#   "Evening Glow" (Ian Hex), "Fallen Leaf" (Martin Klapetek), "By the water" (Maciej Wiklo),
#   "Path" and "Cold Ripple" (Risto Saukonpää), each the 2560 x 1600 JPEG.
# No licence-clean Debian package ships 8-20 MP photos, so each one is Lanczos-upscaled with
# Pillow (centre crop) to a phone camera's size between 8 and 18 MP and written as a baseline
# 4:2:0 JPEG (quality 92); Evening Glow is also written progressive 4:2:2 (quality 92, how
# desktop wallpapers are often shipped: the slow case for libjpeg), and Fallen Leaf as a ~10 MP
# PNG. Upscaled photos carry less fine detail than a sensor's, so their JPEGs are a little
# smaller and faster to decode than a camera's of the same size.
#
#   Benchmarks/DexImaging/fetch-photos.sh [cache-dir]    (default /tmp/dex-imaging-bench)
set -euo pipefail
CACHE="${1:-/tmp/dex-imaging-bench}"
PACKAGE=plasma-workspace-wallpapers
mkdir -p "$CACHE/debs" "$CACHE/photos"
cd "$CACHE/debs"
if ! ls ${PACKAGE}_*.deb >/dev/null 2>&1; then
  # A fresh machine (or a container image) may have empty or stale package lists: refresh them
  # once and retry.
  if ! apt-get download "$PACKAGE"; then
    apt-get update >/dev/null
    apt-get download "$PACKAGE"
  fi
fi
[ -d "$CACHE/x-$PACKAGE" ] || dpkg -x ${PACKAGE}_*.deb "$CACHE/x-$PACKAGE"
python3 - "$CACHE" "$CACHE/x-$PACKAGE/usr/share/wallpapers" <<'PY'
import os, sys
from PIL import Image, ImageOps
cache, wallpapers = sys.argv[1], sys.argv[2]
photos = os.path.join(cache, "photos")
# wallpaper, output name, size, JPEG options (None: PNG)
MADE = [
    ("EveningGlow", "EveningGlow-12MP.jpg", (4032, 3024), dict(subsampling=2, progressive=False)),
    ("EveningGlow", "EveningGlow-12MP-progressive.jpg", (4032, 3024), dict(subsampling=1, progressive=True)),
    ("FallenLeaf", "FallenLeaf-16MP.jpg", (4624, 3468), dict(subsampling=2, progressive=False)),
    ("BytheWater", "BytheWater-18MP.jpg", (5184, 3456), dict(subsampling=2, progressive=False)),
    ("Path", "Path-8MP.jpg", (3264, 2448), dict(subsampling=2, progressive=False)),
    ("ColdRipple", "ColdRipple-12MP.jpg", (4000, 3000), dict(subsampling=2, progressive=False)),
    ("FallenLeaf", "FallenLeaf-10MP.png", (3872, 2592), None),
]
names = {name for _, name, _, _ in MADE}
# Only this script's photos: a cache filled by an older version may hold others.
for stale in set(os.listdir(photos)) - names:
    os.remove(os.path.join(photos, stale))
for wallpaper, name, size, jpeg in MADE:
    out = os.path.join(photos, name)
    if not os.path.exists(out):
        src = os.path.join(wallpapers, wallpaper, "contents", "images", "2560x1600.jpg")
        with Image.open(src) as im:
            big = ImageOps.fit(im.convert("RGB"), size, Image.Resampling.LANCZOS)
        if jpeg is None:
            big.save(out)
        else:
            big.save(out, "JPEG", quality=92, **jpeg)
    print(f"{name}: {size[0] * size[1] / 1e6:.1f} MP")
PY
