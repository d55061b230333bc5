#!/usr/bin/env bash
# PixScan's page in real headless Chromium (Debian chromium + chromium-driver) driven by Selenium
# (PyPI, pinned below; pointed at /usr/bin/chromedriver so that Selenium Manager never downloads
# anything). Builds (or reuses) the pixscan binary from the Examples build in the shared scratch
# folder, makes a temporary folder of photos (DexKitTesting's sample photos, a screen-sized PNG,
# a PNG named like a screenshot, a rendered receipt), points XDG_DATA_HOME at a temporary
# directory (so the freedesktop trash is a temporary one), starts pixscan on 127.0.0.1 and runs
# Scripts/pixscan-browser-test.py against it: a desktop profile (1200 x 1000, mouse and keyboard)
# and a phone profile (Chromium mobile emulation, 390 x 844, every input a touch sent through the
# DevTools protocol), one after the other on the same folder.
#
# Screenshots of each state go to $PIXSCAN_SHOTS_DIR (or the older $DEX_PIXSCAN_SHOTS; default:
# a new temporary directory). The server prints its URL with the access token
# (http://127.0.0.1:PORT/#token=...); the browser opens exactly that. It prints
# `pixscan-browser: N passed, M failed` over both profiles (Scripts/test.sh adds it to its closing
# summary), then
# where the screenshots are.
# Usage: Scripts/pixscan-browser-test.sh   (DEX_TEST_SCRATCH: the scratch folder, default .build)
# Builds (Scripts/swift-build.sh) without the machine's build lock: run the script under it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# What the SDK needs (Scripts/bootstrap.sh: Pillow and DejaVu render the receipt and the
# screenshot, pip), then the browser and its driver (Debian) and Selenium (PyPI, Apache-2.0),
# pinned.
source Scripts/bootstrap.sh
dexkit_install_group browser
# Where the table names no Chromium package (Ubuntu 24.04: a snap only), say so: Scripts/test.sh
# shows this line in its closing summary instead of a count.
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  echo "pixscan-browser: not run: no /usr/bin/chromium and /usr/bin/chromedriver on" \
    "$(dexkit_distribution) (Scripts/packages.tsv, group browser)"
  exit 0
fi

scratch="$(realpath -m "${DEX_TEST_SCRATCH:-.build}")"
# pixscan decodes in dex-decode-worker processes and test-loads language data in
# dex-traineddata-probe: DexKit's executables, built beside it.
for product in pixscan dex-decode-worker dex-traineddata-probe; do
  bash Scripts/swift-build.sh --package-path Examples --scratch-path "$scratch" --product "$product" \
    >/dev/null
done
bin="$scratch/debug/pixscan"

work="$(mktemp -d)"
shots="${PIXSCAN_SHOTS_DIR:-${DEX_PIXSCAN_SHOTS:-$work/shots}}"
mkdir -p "$shots"
folder="$work/photos"
export XDG_DATA_HOME="$work/data"
mkdir -p "$folder" "$XDG_DATA_HOME"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$folder" "$XDG_DATA_HOME" "$work/server.log"
}
trap cleanup EXIT

cp Sources/DexKitTesting/SamplePhotos/*.jpg "$folder/"
/usr/bin/python3 Scripts/text-photo.py receipt "$folder/receipt.png" --size 40 >/dev/null
# A phone screenshot by the size rule (1170 x 2532 PNG, no EXIF) and one by its name.
/usr/bin/python3 - "$folder" <<'EOF'
import sys
from PIL import Image, ImageDraw, ImageFont
folder = sys.argv[1]
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 64)
for name, size, colour in [("phone-capture.png", (1170, 2532), (30, 60, 120)),
                           ("Screenshot 2026-11-25 at 10.00.00.png", (1000, 1000), (90, 40, 60))]:
    image = Image.new("RGB", size, colour)
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, size[0], 120], fill=(20, 20, 20))
    draw.text((40, 30), "9:41", font=font, fill=(255, 255, 255))
    for row in range(6):
        draw.rounded_rectangle([60, 300 + row * 200, size[0] - 60, 450 + row * 200], 30, fill=(240, 240, 240))
        draw.text((100, 340 + row * 200), f"Message {row + 1}", font=font, fill=(20, 20, 20))
    image.save(f"{folder}/{name}")
EOF

"$bin" "$folder" --port 0 >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's|^PixScan: \(http://127.0.0.1:[0-9]*/#token=[0-9a-f]*\)$|\1|p' "$work/server.log")
  if [ -n "$url" ]; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.1
done
if [ -z "$url" ]; then
  cat "$work/server.log" >&2
  echo "pixscan-browser: 0 passed, 1 failed"
  exit 1
fi

status=0
python3 Scripts/pixscan-browser-test.py "$url" "$folder" "$XDG_DATA_HOME/Trash" \
  "$shots" || status=$?
echo "pixscan-browser: screenshots in $shots"
exit "$status"
