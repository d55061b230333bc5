#!/usr/bin/env bash
# PixScan triage throughput: photos triaged per second through the HTTP API the page uses
# (state -> card thumbnail -> decision), with the page's prefetch of the next photos' thumbnails
# and without it, on a folder of 200 3-megapixel JPEGs made from the committed sample photos
# (make-photos.py). Each run starts a fresh pixscan (release build) on a fresh copy of the
# folder's state (no .pixscan, cold thumbnail cache); the two modes alternate, RUNS times each.
# Prints per run the photos/s and pixscan's peak RSS, then the medians, the with/without ratio
# and the processor.
# There is no peer app to run beside it (PixScan's reference is an iOS app; nothing comparable
# runs on Linux), so the figures are absolute medians and the prefetch ratio.
# Usage: Benchmarks/PixScan/run.sh [runs (5)] [photos (200)] [prefetch (3)]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/Benchmarks/PixScan"
RUNS=${1:-5}
COUNT=${2:-200}
AHEAD=${3:-3}
# pixscan with the workers it decodes and probes language data in, built beside it.
for product in pixscan dex-decode-worker dex-traineddata-probe; do
  flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Examples" \
    --scratch-path "$ROOT/.build" --product "$product" >/dev/null
done
BIN="$ROOT/.build/release/pixscan"
# The measurement holds the machine's build lock too, so no build runs beside it.
exec 9>/tmp/dexkit-build.lock
flock 9

work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
/usr/bin/python3 "$HERE/make-photos.py" "$ROOT/Sources/DexKitTesting/SamplePhotos" \
  "$work/photos" "$COUNT"
export XDG_DATA_HOME="$work/data"

run_once() {  # $1: prefetch count; prints "photos/s peak-RSS-MB"
  rm -rf "$work/photos/.pixscan"
  "$BIN" "$work/photos" --port 0 >"$work/server.log" 2>&1 &
  server=$!
  local port="" token=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's|^PixScan: http://127.0.0.1:\([0-9]*\)/#token=[0-9a-f]*$|\1|p' "$work/server.log")
    token=$(sed -n 's|^PixScan: http://127.0.0.1:[0-9]*/#token=\([0-9a-f]*\)$|\1|p' "$work/server.log")
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || { cat "$work/server.log" >&2; exit 1; }
  local rate
  rate=$(nice -n 10 python3 "$HERE/triage.py" "$port" "$1" "$token" \
    | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["per_second"])')
  local rss
  rss=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$server/status")
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=""
  echo "$rate $rss"
}

with=()
without=()
for run in $(seq 1 "$RUNS"); do
  read -r rate rss < <(run_once "$AHEAD")
  with+=("$rate")
  echo "run $run  prefetch $AHEAD: $rate photos/s  (pixscan peak RSS $rss MB)"
  read -r rate rss < <(run_once 0)
  without+=("$rate")
  echo "run $run  prefetch 0: $rate photos/s  (pixscan peak RSS $rss MB)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
m_with=$(median "${with[@]}")
m_without=$(median "${without[@]}")
echo "photos: $COUNT (2016 x 1512 JPEG), runs: $RUNS per mode, card 1024 px"
echo "median with prefetch ($AHEAD ahead): $m_with photos/s"
echo "median without prefetch: $m_without photos/s"
echo "ratio with/without: $(awk -v a="$m_with" -v b="$m_without" 'BEGIN { printf "%.2f", a / b }')"
echo "no peer app: absolute medians and the prefetch ratio only"
echo "processor: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores)"
