#!/usr/bin/env bash
# The whole test suite: installs what is missing, then runs every test target.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/bootstrap.sh
bash Scripts/lint.sh
swift build --build-tests
swift test --skip-build "$@"
