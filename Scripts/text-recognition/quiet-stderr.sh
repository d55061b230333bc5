#!/usr/bin/env bash
# Whether CDexTextShim keeps Tesseract and Leptonica off stderr: builds quiet-stderr.c against
# the shim (as it is, and with Leptonica's severity left alone) and recognizes thin strips of
# noise (3 x 1024, 8 x 1024, 2048 x 16), which make Leptonica warn ("Warning in pixBlockconv").
# Prints each build's stderr line count: the shim as it is must print 0.
#   bash Scripts/text-recognition/quiet-stderr.sh
# Needs gcc and libtesseract-dev with tesseract-ocr-eng (Scripts/bootstrap.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
include=Sources/CDexTextShim/include
cp Sources/CDexTextShim/shim.c "$work/shim.c"
sed 's/^  pthread_once(&leptonica_once, quiet_leptonica);//' Sources/CDexTextShim/shim.c \
  >"$work/shim-loud.c"
# The language-data probe the shim execs before Tesseract loads the data.
# The shim's and the probe's sources compile to nothing without the Tesseract trait's define.
gcc -O1 -DDEXKIT_TRAIT_TESSERACT $(pkg-config --cflags tesseract) Sources/DexTraineddataProbe/main.c -o "$work/probe" \
  -ltesseract
for variant in shim shim-loud; do
  gcc -O1 -DDEXKIT_TRAIT_TESSERACT -I"$include" $(pkg-config --cflags tesseract) Scripts/text-recognition/quiet-stderr.c \
    "$work/$variant.c" Sources/CDexTextShim/traineddata.c -o "$work/$variant" -ltesseract -ldl \
    -lpthread
  "$work/$variant" "$work/probe" >"$work/$variant.out" 2>"$work/$variant.err"
  echo "$variant: $(tr '\n' ' ' <"$work/$variant.out")| stderr lines: $(wc -l <"$work/$variant.err")"
done
