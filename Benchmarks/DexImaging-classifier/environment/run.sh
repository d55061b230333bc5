#!/usr/bin/env bash
# Does loading and running the classifier change the process's environment? Builds spy.c,
# preloads it into a release ClassifierBench (built first unless given as $1) and loads and runs
# f32 and int8 models on one and two threads; prints every setenv/putenv/unsetenv seen and
# fails if there was one. A last run on python3 shows the spy catching a call.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="$root/Benchmarks/.work/environment"
mkdir -p "$work"
cc -shared -fPIC -O1 -o "$work/spy.so" "$here/spy.c" -ldl
bench="${1:-}"
if [ -z "$bench" ]; then
  swift build -c release --package-path "$root/Benchmarks" --product ClassifierBench >&2
  bench="$root/Benchmarks/.build/release/ClassifierBench"
fi
image="$root/Tests/DexImagingTests/Classifier/Fixtures/cat.ppm"
calls=0
for precision in float32 int8; do
  for threads in 1 2; do
    out="$(LD_PRELOAD="$work/spy.so" "$bench" "$image" --runs 4 --threads "$threads" \
      --precision "$precision" 2>&1)"
    seen="$(grep -c '^ENVSPY' <<<"$out" || true)"
    ran="$(grep -o '"precision":"[a-z0-9]*"' <<<"$out")"
    echo "asked $precision, threads $threads: ran $ran, environment calls: $seen"
    grep '^ENVSPY' <<<"$out" || true
    calls=$((calls + seen))
  done
done
echo "the spy itself, on python3's os.putenv:"
LD_PRELOAD="$work/spy.so" python3 -c "import os; os.putenv('DEXKIT_SPY_CHECK', '1')" 2>&1 | grep DEXKIT_SPY_CHECK
[ "$calls" -eq 0 ]
