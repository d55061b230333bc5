#!/usr/bin/env bash
# Parse time of a 4 KB model reply, this tree against another revision (default: the parent
# of the commits that changed the parser, given as REV). Builds each revision's DexModel sources
# with swiftc -O, then runs the two binaries in alternating pairs and prints each pair and the
# medians. Usage: Benchmarks/DexModel/parse-time.sh REV [pairs] (default 15).
set -euo pipefail
cd "$(dirname "$0")/../.."
rev="${1:?usage: parse-time.sh REV [pairs]}"
pairs="${2:-15}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old"
git archive "$rev" Sources/DexModel | tar -x -C "$work/old"
# DexModel reads its lexicon through Bundle.module, which SwiftPM generates: a stand-in per tree.
for tree in "$work/old" "$PWD"; do
  printf 'import Foundation\nextension Foundation.Bundle {\n  static let module = Bundle(path: "%s") ?? .main\n}\n' \
    "$tree/Sources/DexModel" > "$work/bundle-$(basename "$tree").swift"
done
shim() { grep -lq "Bundle.module" "$1"/*.swift && echo "$work/bundle-$(basename "$2").swift" || true; }
swiftc -O -parse-as-library -module-name ParseTime "$work"/old/Sources/DexModel/*.swift \
  $(shim "$work/old/Sources/DexModel" "$work/old") Benchmarks/DexModel/ParseTime.swift \
  -o "$work/parse-old"
swiftc -O -parse-as-library -module-name ParseTime Sources/DexModel/*.swift \
  $(shim Sources/DexModel "$PWD") Benchmarks/DexModel/ParseTime.swift -o "$work/parse-new"
"$work/parse-old" 200 >/dev/null && "$work/parse-new" 200 >/dev/null  # warm up
bytes="$("$work/parse-new" 1 | cut -d' ' -f1)"
echo "pair old_scan_us new_scan_us old_read_us new_read_us"
for pair in $(seq "$pairs"); do
  read -r _ old_scan old_read _ < <("$work/parse-old")
  read -r _ new_scan new_read _ < <("$work/parse-new")
  echo "$pair $old_scan $new_scan $old_read $new_read"
done | tee "$work/pairs"
python3 - "$work/pairs" "$bytes" <<'PY'
import statistics, sys
rows = [list(map(float, line.split()[1:])) for line in open(sys.argv[1]) if line[0].isdigit()]
old_scan, new_scan, old_read, new_read = (statistics.median(c) for c in zip(*rows))
ratios = statistics.median(r[1] / r[0] for r in rows), statistics.median(r[3] / r[2] for r in rows)
print(f"reply {sys.argv[2]} bytes, {len(rows)} pairs, medians:")
print(f"ScanResult(jsonString:)  old {old_scan:.1f} us  new {new_scan:.1f} us  paired ratio {ratios[0]:.3f}")
print(f"LenientJSONReader        old {old_read:.1f} us  new {new_read:.1f} us  paired ratio {ratios[1]:.3f}")
PY
