#!/usr/bin/env bash
# Look-up time of DexKeywordMatcher.standard (keywords + WordNet lexicon) beside the keywords
# alone, per label, over the taxonomy fixtures' labels (Tests/DexModelTests/Fixtures/Taxonomies),
# plus the lexicon's one-off load time. Builds DexModel's sources with swiftc -O. With REV,
# builds that revision's DexModel too and runs the two in alternating processes (ROUNDS rounds
# each), printing each run's medians, REV first.
# Usage: Benchmarks/DexModel/lookup-time.sh [rounds] [REV [runs]] (defaults 15, none, 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/DexModel/swiftc-dexmodel.sh
rounds="${1:-15}"
rev="${2:-}"
runs="${3:-3}"
dexmodel_binary "$PWD" LookupTime Benchmarks/DexModel/LookupTime.swift "$work/lookup-new"
fixtures=(Tests/DexModelTests/Fixtures/Taxonomies/*.tsv)
if [[ -z "$rev" ]]; then
  "$work/lookup-new" "$rounds" "${fixtures[@]}"
  exit
fi
dexmodel_revision "$rev" "$work/old"
dexmodel_binary "$work/old" LookupTime Benchmarks/DexModel/LookupTime.swift "$work/lookup-old"
for run in $(seq "$runs"); do
  echo "run $run, $rev: $("$work/lookup-old" "$rounds" "${fixtures[@]}" | tail -1)"
  echo "run $run, this tree: $("$work/lookup-new" "$rounds" "${fixtures[@]}" | tail -1)"
done
