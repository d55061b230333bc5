#!/usr/bin/env bash
# First-use cost of DexKeywordMatcher.standard in fresh processes, this tree against another
# revision REV (e.g. main before the lexicon was deferred): the time to take the standard
# matcher (what reading the bundled classifier label table costs it), the first label through
# the WordNet lexicon, and a second label. Builds each revision's DexModel sources with
# swiftc -O, runs the two binaries in alternating pairs of fresh processes, and prints each pair
# and the medians. Usage: Benchmarks/DexModel/first-use.sh REV [pairs] (default 15).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/DexModel/swiftc-dexmodel.sh
rev="${1:?usage: first-use.sh REV [pairs]}"
pairs="${2:-15}"
dexmodel_revision "$rev" "$work/old"
dexmodel_binary "$work/old" FirstUse Benchmarks/DexModel/FirstUse.swift "$work/first-old"
dexmodel_binary "$PWD" FirstUse Benchmarks/DexModel/FirstUse.swift "$work/first-new"
"$work/first-old" >/dev/null && "$work/first-new" >/dev/null  # warm the file cache
echo "pair old_standard_ms new_standard_ms old_first_label_ms new_first_label_ms old_second_us new_second_us"
old_standard=(); new_standard=(); old_first=(); new_first=(); old_second=(); new_second=()
for pair in $(seq "$pairs"); do
  read -r os of o2 oc < <("$work/first-old")
  read -r ns nf n2 nc < <("$work/first-new")
  [[ "$oc" == "$nc" ]] || { echo "categories differ: old $oc, new $nc" >&2; exit 1; }
  old_standard+=("$os"); new_standard+=("$ns"); old_first+=("$of"); new_first+=("$nf")
  old_second+=("$o2"); new_second+=("$n2")
  echo "$pair $os $ns $of $nf $o2 $n2"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "median over $pairs fresh processes each ($rev → this tree; labels placed: $nc):"
echo "  take DexKeywordMatcher.standard: $(median "${old_standard[@]}") ms → $(median "${new_standard[@]}") ms"
echo "  first label through the lexicon: $(median "${old_first[@]}") ms → $(median "${new_first[@]}") ms"
echo "  second label: $(median "${old_second[@]}") us → $(median "${new_second[@]}") us"
