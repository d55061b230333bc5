#!/usr/bin/env bash
# oneDNN 2.6 (Debian's libdnnl-dev, what the classifier loads) against oneDNN 3.2 (Intel's PyPI
# wheels onednn-cpu-gomp and onednn-devel-cpu-gomp 2023.2.0, Apache-2.0) on the same Lite0
# convolution chain (layers.c), one thread, side by side in one run.
#
#   bash Benchmarks/DexImaging-classifier/onednn-versions/run.sh [ROUNDS] [PASSES]
#
# The two builds take turns (ROUNDS rounds, who goes first alternating), each round PASSES
# passes on CPU 1; the table gives per layer the median over rounds of each round's median, the
# ratio 3.2 / 2.6, and the pass ratio's median over rounds. The wheels go to Benchmarks/.work.
set -euo pipefail
cd "$(dirname "$0")"
rounds="${1:-6}" passes="${2:-200}"
source ../../../Scripts/bootstrap.sh  # libdnnl-dev (2.6)
work="$(realpath -m ../../.work/onednn-3.2)"
mkdir -p "$work"
if [ ! -e "$work/lib/libdnnl.so.3" ]; then
  python3 -m pip download -q --no-deps -d "$work/wheels" onednn-cpu-gomp==2023.2.0 \
    onednn-devel-cpu-gomp==2023.2.0
  for wheel in "$work"/wheels/*.whl; do python3 -m zipfile -e "$wheel" "$work/unpacked"; done
  mkdir -p "$work/lib" "$work/include"
  cp -a "$work"/unpacked/*/data/lib/libdnnl.so* "$work/lib/"
  cp -a "$work"/unpacked/onednn_devel*/data/include/. "$work/include/"
fi
gcc -O2 -o "$work/layers-2" layers.c -ldnnl
gcc -O2 -o "$work/layers-3" layers.c -I"$work/include" -L"$work/lib" -ldnnl -Wl,-rpath,"$work/lib"
cpu=""
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then cpu="taskset -c 1"; fi
for ((r = 0; r < rounds; r++)); do
  order=(2 3); if ((r % 2)); then order=(3 2); fi
  for v in "${order[@]}"; do
    OMP_NUM_THREADS=1 $cpu "$work/layers-$v" "$passes" >"$work/round-$r-$v.txt"
  done
done
echo "processor: $(lscpu | sed -n 's/^Model name: *//p'); oneDNN 2.6 picks" \
  "$(ONEDNN_VERBOSE=1 OMP_NUM_THREADS=1 "$work/layers-2" 1 2>/dev/null | sed -n 's/.*cpu,runtime.*isa:\([^,]*\).*/\1/p;s/^onednn_verbose,info,cpu,isa:\(.*\)/\1/p' | head -1)"
python3 - "$work" "$rounds" <<'PY'
import statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def read(r, v):
    rows = [line.split() for line in open(f"{work}/round-{r}-{v}.txt")]
    return [(row[1], row[2], float(row[3])) for row in rows if row[0] == "layer"], \
        [float(row[1]) for row in rows if row[0] == "pass"][0]
runs = {v: [read(r, v) for r in range(rounds)] for v in (2, 3)}
print(f"{'layer':28} {'2.6 kernel':26} {'3.2 kernel':26} {'2.6 µs':>8} {'3.2 µs':>8} {'3.2/2.6':>8}")
for i, (shape, old_impl, _) in enumerate(runs[2][0][0]):
    new_impl = runs[3][0][0][i][1]
    old = statistics.median(run[0][i][2] for run in runs[2])
    new = statistics.median(run[0][i][2] for run in runs[3])
    print(f"{shape:28} {old_impl:26} {new_impl:26} {old:8.1f} {new:8.1f} {new / old:8.2f}")
old = [run[1] for run in runs[2]]; new = [run[1] for run in runs[3]]
print(f"pass: 2.6 {statistics.median(old):.3f} ms, 3.2 {statistics.median(new):.3f} ms, "
      f"3.2/2.6 per round {statistics.median(n / o for n, o in zip(new, old)):.3f} "
      f"(rounds: {', '.join(f'{n / o:.3f}' for n, o in zip(new, old))})")
PY
