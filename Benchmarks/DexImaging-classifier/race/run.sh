#!/usr/bin/env bash
# The plan-building race of oneDNN 2.6 (see `dexnn_network_add_plan` in
# Sources/CDexNeuralShim/network.c): harness.c builds an f32 and an int8 network of the
# classifier's stem shape from two threads at once, ITERATIONS times, and compares every plan's
# logits with plans built one at a time. Built twice from the shim's own network.c: as shipped
# (one plan at a time in the process) and without that lock (-DDEX_NO_BUILD_LOCK).
#
#   bash Benchmarks/DexImaging-classifier/race/run.sh [ITERATIONS]
#
# Prints, for each build, with oneDNN's primitive cache off and on, how many iterations had a
# wrong plan. Needs libdnnl-dev (Scripts/bootstrap.sh) and gcc; a processor whose oneDNN kernels
# are brgemm convolutions (AVX-512 here: `ONEDNN_MAX_CPU_ISA=AVX2` shows nothing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
iterations="${1:-60}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
shim="$here/../../../Sources/CDexNeuralShim"
for build in locked unlocked; do
  flag=""
  [ "$build" = unlocked ] && flag="-DDEX_NO_BUILD_LOCK"
  gcc -O1 $flag -DDEXKIT_TRAIT_ONEDNN -I "$shim/include" -I "$shim/../CDexStatus/include" "$here/harness.c" "$shim/network.c" -o "$work/$build" \
    -ldnnl -ldl -lpthread -lm
done
for build in locked unlocked; do
  for cache in off on; do
    settings=()
    [ "$cache" = off ] && settings=(ONEDNN_PRIMITIVE_CACHE_CAPACITY=0)
    result="$(env "${settings[@]}" nice -n 10 "$work/$build" fi "$iterations" | grep RESULT)"
    echo "$build, primitive cache $cache: ${result#RESULT mode fi: }"
  done
done
