#!/usr/bin/env bash
# dex-proxy load test: two proxy instances on loopback in front of the stub upstream, N signed
# /vision requests from a few concurrent clients, once with each instance's in-memory store and
# once with a PostgreSQL store they share (a throwaway server started here by
# Scripts/postgres.sh and stopped on exit), side by side in one run. Prints per store the
# requests accepted and lost, the upstream calls, throughput, p50/p99 latency and how many of
# the accepted requests, sent once more, were refused as replays. Exits 1 if one was lost or
# a replay accepted.
# Usage: Benchmarks/DexProxy/run.sh [requests (10000)] [clients (8)]
#        DEX_BENCH_NO_POSTGRES=1 skips the PostgreSQL run.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
flock /tmp/dexkit-build.lock swift build -c release --package-path "$ROOT/Benchmarks" \
  --product dex-proxy-load >/dev/null
BIN="$ROOT/Benchmarks/.build/release/dex-proxy-load"

if [[ -z "${DEX_BENCH_NO_POSTGRES:-}" ]]; then
  DEX_POSTGRES_DIR="$(mktemp -d)"
  export DEX_POSTGRES_DIR
  trap 'bash "$ROOT/Scripts/postgres.sh" stop >/dev/null 2>&1 || true; rm -rf "$DEX_POSTGRES_DIR"' EXIT
  DEX_BENCH_POSTGRES_URL="$(bash "$ROOT/Scripts/postgres.sh" start)"
  export DEX_BENCH_POSTGRES_URL
fi
nice -n 10 "$BIN" "${1:-10000}" "${2:-8}"
