#!/usr/bin/env bash
# The main job: installs what is missing, builds `dex` (the example app in Examples/, its own
# package beside the SDK), and scans the bundled photo offline into your collection (default:
# the platform's Dex.store; set DEX_STORE to use another). With DEX_CLOUD_BASE_URL and
# DEX_CLOUD_BOOTSTRAP_KEY set, the scan uses your backend's /vision proxy.
# Extra arguments are passed to `dex scan` (for example more photos, --dry-run or --json).
set -euo pipefail
cd "$(dirname "$0")/.."
DEXKIT_PACKAGE_GROUPS=demo source Scripts/bootstrap.sh
bash Scripts/swift-build.sh --package-path Examples --product dex
# dex decodes photos in dex-decode-worker processes (and test-loads Tesseract's language data in
# dex-traineddata-probe): both are DexKit's executables, built beside dex.
bash Scripts/swift-build.sh --package-path Examples --product dex-decode-worker
bash Scripts/swift-build.sh --package-path Examples --product dex-traineddata-probe
dex="$(swift build --package-path Examples --show-bin-path)/dex"
"$dex" scan --sample "$@"
"$dex" list --limit 10
