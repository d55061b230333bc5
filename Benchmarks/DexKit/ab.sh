#!/usr/bin/env bash
# Two builds of dex-scan-benchmark taking turns on the 12 MP photo (both encodings): per round,
# OLD then NEW (NEW first in even rounds), RUNS scans each under `nice -n 10`; prints each run
# and the median of the per-round ratios NEW/OLD of bytes → local guess. The host is shared, so
# the ratio, not the absolute time, is the result.
#
#   Benchmarks/DexKit/ab.sh OLD NEW [rounds] [runs]
#
# Copy each build's Benchmarks/.build/release/dex-scan-benchmark away first (its resource bundle
# stays where it was built, so leave that build folder in place while this runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
old="$1" new="$2" rounds="${3:-8}" runs="${4:-15}"
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow  # fetch-photos.sh uses it
bash Benchmarks/DexImaging/fetch-photos.sh >/dev/null
camera=/tmp/dex-imaging-bench/photos/EveningGlow-12MP.jpg
progressive=/tmp/dex-imaging-bench/photos/EveningGlow-12MP-progressive.jpg
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for kind in camera progressive; do
  photo="$camera"
  [ "$kind" = progressive ] && photo="$progressive"
  for ((round = 1; round <= rounds; round++)); do
    order="old new"
    ((round % 2)) || order="new old"
    for side in $order; do
      binary="$old"
      [ "$side" = new ] && binary="$new"
      printf '%s %s %s ' "$kind" "$round" "$side" | tee -a "$log"
      nice -n 10 "$binary" "$photo" "$runs" | tee -a "$log"
    done
  done
done
python3 - "$log" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if "guess" in line]
for kind in ("camera", "progressive"):
    by_round = {}
    for row in rows:
        if row[0] == kind:
            by_round.setdefault(row[1], {})[row[2]] = float(row[row.index("guess") + 2])
    pairs = [r for r in by_round.values() if "old" in r and "new" in r]
    ratios = [r["new"] / r["old"] for r in pairs]
    print(f"{kind}: local guess median old {statistics.median(r['old'] for r in pairs):.1f} ms, "
          f"new {statistics.median(r['new'] for r in pairs):.1f} ms, "
          f"median ratio new/old {statistics.median(ratios):.3f} over {len(ratios)} rounds")
PY
