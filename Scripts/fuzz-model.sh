#!/usr/bin/env bash
# Fuzzes ScanResult(jsonString:), LenientJSONReader and the category matcher with libFuzzer +
# AddressSanitizer, checking that accepted results keep their invariants, that a cut scalar's
# path leads to a scalar, and that valid JSON reads exactly as JSONDecoder reads it.
# Usage: Scripts/fuzz-model.sh [seconds] (default 600).
# Findings (crash-*, leak-*, timeout-*) land in .build/fuzz/model/artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
out=.build/fuzz/model
mkdir -p "$out/corpus" "$out/artifacts"
cp -n Scripts/fuzz/model-seeds/* "$out/corpus/" 2>/dev/null || true
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
  -module-name DexModelFuzz \
  Sources/DexModel/*.swift Scripts/fuzz/ModelFuzzer.swift \
  -o "$out/model-fuzzer"
"$out/model-fuzzer" "$out/corpus" \
  -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$out/artifacts/" -print_final_stats=1
