#!/usr/bin/env bash
# Counts the instructions one single-threaded forward pass of the classifier executes, under
# valgrind's callgrind, in total and per function.
#
#   Benchmarks/DexImaging-classifier/instructions.sh [photo] [binary]
#
# Why: on a shared host the time of a pass moves by a third from one second to the next, so a
# change worth 1–2 % needs many alternating rounds to show. An instruction count does not move
# with the host's load: two builds can be compared with one run each. It is not a time (it
# ignores cache misses and how many instructions retire per cycle), so a kernel change that
# removes instructions still has to show in alternating timed rounds (`bench.py`); but under a
# loaded core time tracks it closely, and a change that adds instructions rarely pays.
#
# `photo` is a fixture name (cat, bird, mushroom, …; default cat). `binary` is a ClassifierBench
# build to count instead of building this checkout's (to compare with an older build, copy its
# `.build/release/ClassifierBench` away first). Installs valgrind when it is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
photo="$root/Tests/DexImagingTests/Classifier/Fixtures/${1:-cat}.ppm"
[ -f "$photo" ] || { echo "no fixture $photo" >&2; exit 2; }
if ! command -v valgrind >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends valgrind
fi
binary="${2:-}"
if [ -z "$binary" ]; then
  flock /tmp/dexkit-swift.lock swift build -c release --package-path "$root/Benchmarks" \
    --product ClassifierBench --disable-build-manifest-caching >&2
  binary="$root/Benchmarks/.build/release/ClassifierBench"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the toolchain's DWARF; the symbol table is enough for function names.
strip --strip-debug -o "$work/bench" "$binary"
count() {  # $1 runs -> callgrind output file
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" "$work/bench" "$photo" \
    --runs "$1" --warmup 0 --skip-end-to-end >/dev/null 2>"$work/log.$1"
  grep -o 'Collected : [0-9]*' "$work/log.$1" | grep -o '[0-9]*$'
}
runs=4
base=$(count 0)  # loading, decoding and one pass for the top-1 label
more=$(count "$runs")
python3 - "$base" "$more" "$runs" "$work/cg.0" "$work/cg.$runs" <<'EOF'
import re, subprocess, sys
base, more, runs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
per_pass = (more - base) / runs
print(f"instructions per forward pass: {per_pass / 1e6:.1f} M")
def functions(path):
    out = subprocess.run(["callgrind_annotate", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*?:(\S+)", line)
        if m:
            table[m.group(2)] = table.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return table
a, b = functions(sys.argv[4]), functions(sys.argv[5])
rows = sorted(((b.get(k, 0) - a.get(k, 0)) / runs, k) for k in set(a) | set(b))
rows = [r for r in reversed(rows) if r[0] > per_pass * 0.005]
for value, symbol in rows:
    name = subprocess.run(["swift", "demangle", "--compact", "--simplified", symbol], capture_output=True,
                          text=True).stdout.strip() or symbol
    print(f"{value / 1e6:8.1f} M {100 * value / per_pass:5.1f} %  {name[:110]}")
EOF
