#!/usr/bin/env bash
# Look-up time of DexKeywordMatcher.standard (keywords + WordNet lexicon) beside the keywords
# alone, per label, over the taxonomy fixtures' labels (Tests/DexModelTests/Fixtures/Taxonomies),
# plus the lexicon's one-off load time. Builds DexModel's sources with swiftc -O and a
# Bundle.module stand-in. Usage: Benchmarks/DexModel/lookup-time.sh [rounds] (default 15).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-15}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf 'import Foundation\nextension Foundation.Bundle {\n  static let module = Bundle(path: "%s") ?? .main\n}\n' \
  "$PWD/Sources/DexModel" > "$work/BundleModule.swift"
swiftc -O -parse-as-library -module-name LookupTime Sources/DexModel/*.swift \
  "$work/BundleModule.swift" Benchmarks/DexModel/LookupTime.swift -o "$work/lookup-time"
"$work/lookup-time" "$rounds" Tests/DexModelTests/Fixtures/Taxonomies/*.tsv
