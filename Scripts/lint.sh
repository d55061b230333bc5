#!/usr/bin/env bash
# Style and documentation check: swift-format with the project's .swift-format, warnings fatal.
# The AllPublicDeclarationsHaveDocumentation rule fails on any public symbol without a doc
# comment.
set -euo pipefail
cd "$(dirname "$0")/.."
swift format lint --strict --recursive Sources Tests Examples Scripts/fuzz
# Every DEX_* environment variable the SDK and the examples read is documented (README.md or a
# DocC page), and every documented one is read by something (Scripts/environment-docs.py says
# precisely what counts).
python3 Scripts/environment-docs.py
