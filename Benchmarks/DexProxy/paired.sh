#!/usr/bin/env bash
# dex-proxy load test, paired: this checkout's dex-proxy-load against a baseline build of another
# commit, in ABBA rounds on the in-memory store (the shared host drifts; alternating the order
# keeps the drift out of the ratio). Prints per run the throughput and the CPU seconds the whole
# load process (clients, two proxies, stub upstream) used for the requests, then the medians and
# the ratios new/baseline. A change that costs CPU per request shows in the CPU ratio even when
# the host's noise hides it in the throughput.
# Usage: Benchmarks/DexProxy/paired.sh BASELINE_BINARY [rounds (4)] [requests (10000)]
#   Build a baseline with, for example:
#     git worktree add /tmp/dex-baseline <commit>
#     swift build -c release --package-path /tmp/dex-baseline/Benchmarks --product dex-proxy-load
#   and pass /tmp/dex-baseline/Benchmarks/.build/release/dex-proxy-load.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASELINE=${1:?usage: paired.sh BASELINE_BINARY [rounds] [requests]}
ROUNDS=${2:-4}
REQUESTS=${3:-10000}
[[ -x "$BASELINE" ]] || { echo "paired.sh: $BASELINE is not an executable" >&2; exit 64; }
flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
  --product dex-proxy-load >/dev/null
CURRENT="$ROOT/Benchmarks/.build/release/dex-proxy-load"
unset DEX_BENCH_POSTGRES_URL
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

run() { # $1 label, $2 binary
  local out
  out=$(/usr/bin/time -f 'cpu %U %S' nice -n 10 "$2" "$REQUESTS" 8 2>&1)
  local rate cpu
  rate=$(awk '$1 == "memory" { print $5 }' <<<"$out")
  cpu=$(awk '$1 == "cpu" { print $2 + $3 }' <<<"$out")
  grep -q '^memory .* 0 ' <<<"$out" || { echo "$out" >&2; echo "paired.sh: $1 lost a request" >&2; exit 1; }
  printf '%-8s %8s req/s %8.2f cpu s\n' "$1" "$rate" "$cpu"
  echo "$1 $rate $cpu" >>"$RESULTS"
}

echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs;" \
  "$REQUESTS requests, 8 clients, in-memory store, $ROUNDS ABBA rounds"
for ((round = 1; round <= ROUNDS; round++)); do
  if ((round % 2)); then
    run baseline "$BASELINE"; run current "$CURRENT"
  else
    run current "$CURRENT"; run baseline "$BASELINE"
  fi
done

python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
med = {}
for label in ("baseline", "current"):
    rates = [float(r[1]) for r in rows if r[0] == label]
    cpus = [float(r[2]) for r in rows if r[0] == label]
    med[label] = (statistics.median(rates), statistics.median(cpus))
    print(f"median {label:8} {med[label][0]:8.0f} req/s {med[label][1]:8.2f} cpu s")
print(f"ratio current/baseline: throughput {med['current'][0] / med['baseline'][0]:.2f}, "
      f"cpu per run {med['current'][1] / med['baseline'][1]:.2f}")
PY
