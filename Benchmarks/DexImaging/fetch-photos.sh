#!/usr/bin/env bash
# Fetches the benchmark photos: real 8-20 MP JPEGs from Debian wallpaper packages
# (apt-get download + dpkg -x into a cache directory; nothing is installed) and makes one ~10 MP
# PNG photo from one of them with Pillow.
#
#   Benchmarks/DexImaging/fetch-photos.sh [cache-dir]    (default /tmp/dex-imaging-bench)
set -euo pipefail
CACHE="${1:-/tmp/dex-imaging-bench}"
mkdir -p "$CACHE/debs" "$CACHE/photos"
cd "$CACHE/debs"
updated=no
for pkg in lomiri-wallpapers-16.04 lomiri-wallpapers-20.04 mate-backgrounds; do
  ls ${pkg}_*.deb >/dev/null 2>&1 && continue
  # A fresh machine (or a container image) may have empty or stale package lists: refresh them
  # once and retry.
  if ! apt-get download "$pkg"; then
    if [ "$updated" = no ]; then
      apt-get update >/dev/null
      updated=yes
    fi
    apt-get download "$pkg"
  fi
done
for deb in *.deb; do dpkg -x "$deb" "$CACHE/x"; done
python3 - "$CACHE" <<'PY'
import glob, os, shutil, sys
from PIL import Image
cache = sys.argv[1]
chosen = []
for path in sorted(glob.glob(os.path.join(cache, "x", "**", "*.jp*g"), recursive=True)):
    with Image.open(path) as im:
        mp = im.size[0] * im.size[1] / 1e6
    if 8.0 <= mp <= 20.0:
        shutil.copy(path, os.path.join(cache, "photos", os.path.basename(path)))
        chosen.append((os.path.basename(path), mp))
# One ~10 MP PNG photo: "sunset" (Aitzol Berasategi, CC-BY-4.0) resized to 3872 x 2592.
src = glob.glob(os.path.join(cache, "x", "**", "sunset_by_Aitzol_Berasategi.jpg"), recursive=True)[0]
png = os.path.join(cache, "photos", "sunset-10MP.png")
if not os.path.exists(png):
    Image.open(src).convert("RGB").resize((3872, 2592), Image.Resampling.LANCZOS).save(png)
for name, mp in chosen:
    print(f"{name}: {mp:.1f} MP")
print(f"sunset-10MP.png: {3872 * 2592 / 1e6:.1f} MP")
PY
