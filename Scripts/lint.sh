#!/usr/bin/env bash
# Style and documentation check: swift-format with the project's .swift-format, warnings fatal.
# The AllPublicDeclarationsHaveDocumentation rule fails on any public symbol without a doc
# comment.
set -euo pipefail
cd "$(dirname "$0")/.."
swift format lint --strict --recursive Sources Tests Examples Scripts/fuzz
