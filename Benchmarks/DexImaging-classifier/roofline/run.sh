#!/usr/bin/env bash
# How close Lite0's layers run to this processor's float32 peak: one core's multiply-add peak
# (peak.c), Lite0's convolution chain on oneDNN 2.6 (../onednn-versions/layers.c: the same
# shapes, kernels and post-ops as the classifier, synthetic weights) and onnxruntime's whole
# pass on the converted weights, taking turns on one pinned CPU, one thread.
#
#   pip install numpy onnx onnxruntime
#   bash Benchmarks/DexImaging-classifier/roofline/run.sh [ROUNDS] [PASSES] [CLASSIFIER_BENCH]
#
# Prints per layer group (stem, depthwise, 1x1 by resolution) the multiply-adds, the median time
# and the share of the peak reached, then onnxruntime's pass and what a pass at 0.9x onnxruntime
# would need. Medians over ROUNDS rounds of PASSES passes each. With a built ClassifierBench
# (Benchmarks/.build/release/ClassifierBench) it also times the classifier's own plan (fused
# blocks, matrix products) in the same rounds, from oneDNN's log (plan.py).
set -euo pipefail
rounds="${1:-5}" passes="${2:-200}" bench="${3:-}"
if [ -n "$bench" ]; then bench="$(realpath "$bench")"; fi
cd "$(dirname "$0")"
source ../../../Scripts/bootstrap.sh  # libdnnl-dev (2.6)
work="$(realpath -m ../../.work/roofline)"
mkdir -p "$work"
gcc -O2 -o "$work/peak" peak.c
gcc -O2 -o "$work/layers" ../onednn-versions/layers.c -ldnnl
model="$work/efficientnet-lite0.onnx"
python3 ../bench.py --export-worker "$model" ../../../Tests/DexImagingTests/Classifier/Fixtures/cat.ppm \
  >"$work/expected.json"
cpu=""
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then cpu="taskset -c 1"; fi
for ((r = 0; r < rounds; r++)); do
  $cpu "$work/peak" 3 >"$work/peak-$r.txt"
  if [ -n "$bench" ]; then
    ONEDNN_VERBOSE=1 $cpu "$bench" ../../../Tests/DexImagingTests/Classifier/Fixtures/cat.ppm \
      --runs "$passes" --threads 1 --skip-end-to-end >"$work/plan-$r.txt" 2>&1
  fi
  OMP_NUM_THREADS=1 $cpu "$work/layers" "$passes" >"$work/layers-$r.txt"
  $cpu python3 - "$model" "$passes" >"$work/onnxruntime-$r.txt" <<'PY'
import statistics, sys, time
import numpy as np
import onnxruntime as ort
options = ort.SessionOptions()
options.intra_op_num_threads = 1
options.inter_op_num_threads = 1
session = ort.InferenceSession(sys.argv[1], options, providers=["CPUExecutionProvider"])
x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
for _ in range(20):
    session.run(None, {"input": x})
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    session.run(None, {"input": x})
    times.append((time.perf_counter() - t) * 1000)
print(f"pass {statistics.median(times):.3f}")
PY
done
echo "processor: $(lscpu | sed -n 's/^Model name: *//p'), cpu family $(sed -n 's/^cpu family\s*: //p' /proc/cpuinfo | head -1);" \
  "oneDNN 2.6 picks $(ONEDNN_VERBOSE=1 OMP_NUM_THREADS=1 "$work/layers" 1 2>/dev/null | sed -n 's/^onednn_verbose,info,cpu,isa:\(.*\)/\1/p' | head -1)"
python3 - "$work" "$rounds" <<'PY'
import re, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def lines(name, r):
    return [line.split() for line in open(f"{work}/{name}-{r}.txt")]
peaks = {}
for r in range(rounds):
    for row in lines("peak", r):
        peaks.setdefault(row[1], []).append(float(row[2]))
peak = {isa: statistics.median(values) for isa, values in peaks.items()}
best = max(peak.values())
open(f"{work}/peak-best.txt", "w").write(f"{best}\n")
print("one core's float32 peak: " + ", ".join(f"{isa} {value:.0f} GFLOP/s" for isa, value in peak.items()))
layer_runs = [[row for row in lines("layers", r) if row[0] == "layer"] for r in range(rounds)]
groups, order, total_macs, total_us = {}, [], 0, 0
for i, row in enumerate(layer_runs[0]):
    size, inputs, outputs, kernel, stride, depthwise = re.match(
        r"(\d+)x\d+:(\d+)->(\d+):k(\d)s(\d)(:dw)?", row[1]).groups()
    side = int(size) // int(stride)
    if depthwise:
        macs, group = side * side * int(outputs) * int(kernel) ** 2, "depthwise"
    elif int(kernel) > 1:
        macs, group = side * side * int(inputs) * int(outputs) * int(kernel) ** 2, "stem"
    else:
        macs, group = side * side * int(inputs) * int(outputs), f"1x1 at {side}x{side}"
    us = statistics.median(float(run[i][3]) for run in layer_runs)
    if group not in groups:
        order.append(group)
        groups[group] = [0, 0.0]
    groups[group][0] += macs
    groups[group][1] += us
    total_macs += macs
    total_us += us
print(f"\noneDNN 2.6, one thread, Lite0's convolutions ({layer_runs[0][0][2]} ... per layer; median over rounds)")
print(f"{'group':14} {'M mult-adds':>12} {'µs':>8} {'GFLOP/s':>8} {'of peak':>8} {'share of time':>14}")
for group in order:
    macs, us = groups[group]
    rate = 2 * macs / us / 1e3
    print(f"{group:14} {macs / 1e6:12.1f} {us:8.0f} {rate:8.1f} {rate / best:8.0%} {us / total_us:14.0%}")
rate = 2 * total_macs / total_us / 1e3
print(f"{'all':14} {total_macs / 1e6:12.1f} {total_us:8.0f} {rate:8.1f} {rate / best:8.0%}")
classifier = 1280 * 1000
network = total_macs + classifier
onnx = statistics.median(float(lines("onnxruntime", r)[0][1]) for r in range(rounds))
print(f"\nnetwork: {network / 1e6:.1f} M multiply-adds (with the 1280 x 1000 classifier)")
for label, ms in (("onnxruntime pass", onnx), ("0.9 x onnxruntime", 0.9 * onnx), ("0.8 x onnxruntime", 0.8 * onnx)):
    rate = 2 * network / ms / 1e6
    print(f"{label:20} {ms:6.2f} ms  {rate:6.1f} GFLOP/s  {rate / best:5.0%} of peak")
PY
if [ -n "$bench" ]; then
  echo
  python3 plan.py --peak "$(cat "$work/peak-best.txt")" "$work"/plan-*.txt
fi
