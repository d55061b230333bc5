#!/usr/bin/env bash
# DexCloud signing benchmark: ours (release build) and the peer (Python hmac/hashlib) in one run.
# Prints per body size the median ns per signature, the ratio ours/peer, the median ns per
# verification (signature + window + replay cache), and each process's peak RSS.
# Usage: Benchmarks/DexCloud/run.sh   (builds under the shared lock, runs under nice)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
  --product DexCloudBench >/dev/null
BIN="$ROOT/Benchmarks/.build/release/DexCloudBench"

OURS=$(mktemp); PEER=$(mktemp); RSS1=$(mktemp); RSS2=$(mktemp)
trap 'rm -f "$OURS" "$PEER" "$RSS1" "$RSS2"' EXIT
nice -n 10 /usr/bin/time -f "%M" -o "$RSS1" "$BIN" > "$OURS"
nice -n 10 /usr/bin/time -f "%M" -o "$RSS2" python3 "$ROOT/Benchmarks/DexCloud/peer.py" > "$PEER"

printf "%-10s %14s %14s %12s %16s\n" "body" "ours ns/sign" "peer ns/sign" "ours/peer" "ours ns/verify"
join "$OURS" "$PEER" | while read -r size sign verify _ peer; do
  ratio=$(awk -v a="$sign" -v b="$peer" 'BEGIN { printf "%.2f", a / b }')
  printf "%-10s %14s %14s %12s %16s\n" "$size B" "$sign" "$peer" "$ratio" "$verify"
done
echo "peak RSS: ours $(cat "$RSS1") KiB, peer (python3) $(cat "$RSS2") KiB"
