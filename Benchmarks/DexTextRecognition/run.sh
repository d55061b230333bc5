#!/usr/bin/env bash
# DexTextRecognition's benchmark: TesseractTextRecognizer on a rendered 12 MP photo of printed
# text vs the `tesseract` command line on the same file, alternating, median of 7 pairs (or
# DEX_TEXT_BENCH_PAIRS), ratio ours/peer, peak RSS of both (/usr/bin/time -v), processor named.
#
#   Benchmarks/DexTextRecognition/run.sh
# Needs (Scripts/bootstrap.sh installs them): libtesseract-dev, tesseract-ocr-eng, tesseract-ocr
# (the peer), python3-pil and fonts-dejavu-core (the photo), GNU time (/usr/bin/time).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${DEX_TEXT_BENCH_WORK:-/tmp/dex-text-bench}"
flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
  --product dex-text-bench
BIN="$(swift build -c release --package-path "$ROOT/Benchmarks" --show-bin-path)"
# Timing under the shared lock, so that no Swift build competes for the two cores.
flock /tmp/dexkit-build.lock nice -n 10 /usr/bin/python3 "$ROOT/Benchmarks/DexTextRecognition/bench.py" \
  "$BIN/dex-text-bench" "$WORK" "${DEX_TEXT_BENCH_PAIRS:-7}"
