#!/usr/bin/env bash
# Fuzzes DexImaging's decode entry points (JPEG, PNG, HEIF / AVIF, WebP) with libFuzzer +
# AddressSanitizer, and UndefinedBehaviorSanitizer on the C shim.
#
#   Scripts/fuzz-imaging.sh [seconds]        (default 600)
#
# The harness is built with `swiftc -sanitize=fuzzer,address` from the DexImaging sources (one
# module), swift-log and DexModel (plain static modules) and the C shim compiled by clang with
# -fsanitize=fuzzer-no-link,address,undefined (UBSan errors abort, so libFuzzer records them).
# The build and the fuzzing run (under `nice -n 10`, bounded by -max_total_time) both hold the
# shared build lock. The corpus is seeded from Tests/DexImagingTests/Resources, its formats/
# folder and Scripts/fuzz-imaging/heif-seeds (the hostile HEIF / AVIF files of issue 38, written
# by Tests/DexImagingTests/HEIFReproducerTests.swift with DEX_HEIF_REPRODUCERS set);
# DEX_FUZZ_SEEDS=formats seeds (and grows) a separate corpus with the HEIF / AVIF / WebP fixtures
# and those seeds only, to spend the run on those decoders. Findings (crash-*, leak-*, timeout-*, oom-*) land in .build/fuzz-imaging/findings.
set -euo pipefail

SECONDS_TO_RUN="${1:-600}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.build/fuzz-imaging"
LOCK=/tmp/dexkit-build.lock
mkdir -p "$OUT/modules" "$OUT/corpus" "$OUT/findings"

LOG_SOURCES="$ROOT/.build/checkouts/swift-log/Sources/Logging"
if [ ! -d "$LOG_SOURCES" ]; then
  flock "$LOCK" swift package --package-path "$ROOT" resolve
fi

cat > "$OUT/modules/module.modulemap" <<MAP
module CDexStatus {
  header "$ROOT/Sources/CDexStatus/include/CDexStatus.h"
  export *
}
module CDexImageShim {
  header "$ROOT/Sources/CDexImageShim/include/CDexImageShim.h"
  export *
}
MAP

build() {
  set -e
  set -x
  cd "$OUT"
  swiftc -O -parse-as-library -package-name swift_log -module-name Logging -emit-module -emit-module-path modules/Logging.swiftmodule \
    -emit-library -static -o libLogging.a $(find "$LOG_SOURCES" -name '*.swift')
  # DexModel reads its lexicon through SwiftPM's Bundle.module; outside SwiftPM that accessor is
  # this stand-in (the decoders never touch the lexicon).
  printf 'import Foundation\nextension Foundation.Bundle { static let module = Bundle.main }\n' \
    > DexModelBundle.swift
  swiftc -O -parse-as-library -package-name DexKit -module-name DexModel -emit-module -emit-module-path modules/DexModel.swiftmodule \
    -emit-library -static -o libDexModel.a "$ROOT"/Sources/DexModel/*.swift DexModelBundle.swift
  for c in "$ROOT"/Sources/CDexImageShim/*.c "$ROOT"/Sources/CDexStatus/*.c; do
    clang -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
      -fno-omit-frame-pointer -DDEXKIT_TRAIT_SYSTEM_IMAGE_CODECS $(pkg-config --cflags libpng16 libjpeg libheif libwebpdemux) \
      -I "$ROOT/Sources/CDexImageShim/include" -I "$ROOT/Sources/CDexStatus/include" -c "$c" -o "shim-$(basename "$c" .c).o"
  done
  swiftc -O -g -sanitize=fuzzer,address -parse-as-library -package-name DexKit -module-name DexImagingFuzz \
    -D SystemImageCodecs \
    -I modules -Xcc -I"$ROOT/Sources/CDexStatus/include" -L . -lLogging -lDexModel \
    "$ROOT"/Sources/DexImaging/*.swift "$ROOT/Scripts/fuzz-imaging/FuzzHarness.swift" \
    shim-*.o $(pkg-config --libs libpng16 libjpeg libheif libwebpdemux libwebp libde265 dav1d) -lm \
    -o fuzz-imaging
  set +x
}
export -f build
export OUT ROOT LOG_SOURCES
flock "$LOCK" bash -c build

CORPUS=corpus
FORMATS="$ROOT/Tests/DexImagingTests/Resources/formats"
if [ "${DEX_FUZZ_SEEDS:-all}" = formats ]; then
  CORPUS=corpus-formats
  mkdir -p "$OUT/$CORPUS"
else
  cp -n "$ROOT"/Tests/DexImagingTests/Resources/*.jpg "$ROOT"/Tests/DexImagingTests/Resources/*.png "$OUT/corpus/" 2>/dev/null || true
fi
cp -n "$FORMATS"/*.heic "$FORMATS"/*.avif "$FORMATS"/*.webp "$ROOT"/Scripts/fuzz-imaging/heif-seeds/* \
  "$OUT/$CORPUS/" 2>/dev/null || true

cd "$OUT"
export LSAN_OPTIONS="suppressions=$ROOT/Scripts/fuzz-imaging/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
flock "$LOCK" nice -n 10 ./fuzz-imaging "$CORPUS" -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 \
  -max_len=262144 -artifact_prefix=findings/ -print_final_stats=1 2>&1 | tee fuzz.log | grep -E "^#[0-9]+.*(pulse|DONE)|ERROR|SUMMARY|stat::" || true
echo "findings: $(ls findings | wc -l) file(s) in $OUT/findings"
