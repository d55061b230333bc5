#!/usr/bin/env bash
# Renders the dex HTML gallery in headless Chromium (Debian `chromium`) and saves screenshots
# of the index at desktop and phone widths and of one entry page into Documentation/.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/packages.sh
dexkit_install_group browser
swift build --product dex
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dex=.build/debug/dex
$dex scan --store "$work/store" --sample Sources/DexKitTesting/SamplePhotos/*.jpg >/dev/null
$dex export --html "$work/gallery" --store "$work/store"
shoot() { chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$2" --screenshot="$3" "file://$1" 2>/dev/null; }
shoot "$work/gallery/index.html" 1200,800 Documentation/gallery-index.png
shoot "$work/gallery/index.html" 390,844 Documentation/gallery-phone.png
entry=$(ls "$work/gallery/entries" | head -n 1)
shoot "$work/gallery/entries/$entry" 390,1100 Documentation/gallery-entry-phone.png
echo "Wrote Documentation/gallery-index.png, gallery-phone.png, gallery-entry-phone.png"
