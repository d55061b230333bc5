#!/usr/bin/env python3
"""The system XNNPACK's 1×1 convolution kernels beside numpy's matmul (OpenBLAS), one thread.

  nice -n 10 python3 Benchmarks/DexImaging-classifier/xnnpack-kernels/kernels.py [--runs 30]

For every 1×1 convolution of EfficientNet-Lite0 (shapes read from the bundled manifest: the
blocks' expansions and projections and the head) it compiles and runs pointwise.c, which times
the layer through XNNPACK's operator API in f32 and in qc8 (int8 activations, per-channel int8
weights), and times the same f32 product with numpy in this process (OPENBLAS_NUM_THREADS=1).
It prints, per layer, the best-of-runs milliseconds and multiply-adds per nanosecond of each,
and the totals over the network's 1×1 layers with the ratios XNNPACK f32 / numpy and
XNNPACK qc8 / XNNPACK f32.

It exists because the f32 graph on Debian's libxnnpack (0.0~git20220216) measured slower than the
portable path although its set-up per inference is tens of microseconds (xnn_setup_runtime)
against tens of milliseconds in xnn_invoke_runtime: this script shows where that time goes.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
MANIFEST = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources",
                        "EfficientNetLite0.json")


def same_output(size, stride):
    return (size + stride - 1) // stride


def layers():
    """(name, pixels, input channels, output channels) of every 1×1 convolution."""
    arch = json.load(open(MANIFEST))["architecture"]
    side = same_output(224, 2)
    channels = arch["stemChannels"]
    out = []
    for i, block in enumerate(arch["blocks"]):
        expanded = channels * block["expand"]
        if block["expand"] != 1:
            out.append((f"blocks.{i}.expand", side * side, channels, expanded))
        side = same_output(side, block["stride"])
        out.append((f"blocks.{i}.project", side * side, expanded, block["outputChannels"]))
        channels = block["outputChannels"]
    out.append(("head", side * side, channels, arch["headChannels"]))
    return out


def numpy_best(pixels, cin, cout, runs):
    import numpy as np
    rng = np.random.default_rng(1)
    x = rng.random((pixels, cin), dtype=np.float32)
    w = rng.random((cin, cout), dtype=np.float32)
    y = np.empty((pixels, cout), dtype=np.float32)
    np.matmul(x, w, out=y)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        np.matmul(x, w, out=y)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main():
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        # OpenBLAS reads it when it loads: restart with it set before numpy is imported.
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="xnnpack-kernels-")
    binary = os.path.join(work, "pointwise")
    subprocess.run(["cc", "-O2", os.path.join(HERE, "pointwise.c"), "-o", binary, "-lXNNPACK",
                    "-lpthreadpool", "-lcpuinfo", "-lm"], check=True)
    print("| layer | pixels × in → out | XNNPACK f32 ms | qc8 ms | numpy f32 ms | "
          "f32 MAC/ns | qc8 MAC/ns | numpy MAC/ns |")
    print("|---|---|---|---|---|---|---|---|")
    totals = [0.0, 0.0, 0.0]
    for name, pixels, cin, cout in layers():
        line = subprocess.run([binary, str(pixels), str(cin), str(cout), str(args.runs)],
                              check=True, capture_output=True, text=True).stdout.split()
        f32, qc8 = float(line[3]), float(line[4])
        peer = numpy_best(pixels, cin, cout, args.runs)
        macs = pixels * cin * cout / 1e6  # per millisecond → per nanosecond
        totals = [totals[0] + f32, totals[1] + qc8, totals[2] + peer]
        print(f"| {name} | {pixels} × {cin} → {cout} | {f32:.3f} | {qc8:.3f} | {peer:.3f} | "
              f"{macs / f32:.1f} | {macs / qc8:.1f} | {macs / peer:.1f} |")
    f32, qc8, peer = totals
    print(f"\nall 1×1 layers: XNNPACK f32 {f32:.2f} ms, qc8 {qc8:.2f} ms, numpy f32 {peer:.2f} ms; "
          f"XNNPACK f32 / numpy {f32 / peer:.2f}, qc8 / f32 {qc8 / f32:.2f}")


if __name__ == "__main__":
    main()
