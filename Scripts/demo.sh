#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the offline demo.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/bootstrap.sh
swift run -c release dex-demo "$@"
