#!/usr/bin/env python3
"""What EfficientNet-Lite1 and Lite2 would cost against Lite0: bytes, multiply-adds, network time.

  python3 Scripts/classifier-evalset.py logits DIR --model lite1   # converts, exports DIR/lite1.onnx
  python3 Scripts/classifier-evalset.py logits DIR --model lite2
  python3 Benchmarks/DexImaging-classifier/lite-models.py DIR [--runs 40] [--rounds 5]

For each model whose converted resources are found (Lite0: the package's; Lite1 and Lite2:
DIR/lite1/, DIR/lite2/ from `classifier-evalset.py logits --model`), prints:
- its parameters and bytes: the float16 weights file as shipped (what an app bundle carries),
  float32 (4 bytes a parameter), and an estimate for int8 weights (1 byte a weight, a float32 bias
  and a float32 scale per output channel);
- its multiply-adds per image (convolutions and the classifier, from the manifest's architecture);
- onnxruntime's time for the network alone (DIR/MODEL.onnx, a random input of the model's size),
  on 1 and 2 intra-op threads, one request at a time: the median of `--runs` passes per round,
  then the median over `--rounds` rounds in which the models take turns (the shared host's speed
  drifts over seconds), with the ratio to Lite0 of the same round.
The Swift engine runs Lite0 only; these are onnxruntime's figures, which its f32 path matches
within a few per cent (Benchmarks/HISTORY.md).
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESOURCES = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources")


def same_out(size, stride):
    return -(-size // stride)


def multiply_adds(manifest):
    """Multiply-adds of one pass: convolutions (TF SAME), the head and the classifier."""
    arch = manifest["architecture"]
    size = same_out(manifest["preprocessing"]["inputSize"], 2)
    total = size * size * 3 * 3 * 3 * arch["stemChannels"]
    for block in arch["blocks"]:
        wide = block["inputChannels"] * block["expand"]
        if block["expand"] != 1:
            total += size * size * block["inputChannels"] * wide
        size = same_out(size, block["stride"])
        total += size * size * wide * block["kernel"] ** 2 + size * size * wide * block["outputChannels"]
    total += size * size * arch["blocks"][-1]["outputChannels"] * arch["headChannels"]
    return total + arch["headChannels"] * arch["classes"]


def sizes(manifest):
    """(parameters, float16 file bytes, float32 bytes, estimated int8 bytes)."""
    weights = sum(_count(t) for t in manifest["tensors"] if t["dtype"] == "float16")
    biases = sum(_count(t) for t in manifest["tensors"] if t["dtype"] == "float32")
    return weights + biases, manifest["weights"]["byteCount"], 4 * (weights + biases), weights + 8 * biases


def _count(tensor):
    n = 1
    for d in tensor["shape"]:
        n *= d
    return n


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", help="the evaluation folder of classifier-evalset.py (holds MODEL.onnx)")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import numpy as np
    import onnxruntime as ort

    models = []
    for model in ("lite0", "lite1", "lite2"):
        folder = RESOURCES if model == "lite0" else os.path.join(args.dest, model)
        path = os.path.join(folder, "EfficientNetLite" + model[-1] + ".json")
        onnx_path = os.path.join(args.dest, model + ".onnx")
        if not (os.path.exists(path) and os.path.exists(onnx_path)):
            print(f"{model}: no {path} or {onnx_path} (run classifier-evalset.py logits DIR --model {model})")
            continue
        manifest = json.load(open(path))
        models.append((model, manifest, onnx_path))
    print(f"{'model':6s} {'input':>5s} {'params':>9s} {'f16 file':>10s} {'f32':>10s} {'int8 (est.)':>11s} {'MACs':>8s}")
    for model, manifest, _ in models:
        params, f16, f32, int8 = sizes(manifest)
        print(f"{model:6s} {manifest['preprocessing']['inputSize']:5d} {params:9d} {f16:10d} {f32:10d} {int8:11d} "
              f"{multiply_adds(manifest) / 1e6:7.0f}M")
    print(f"onnxruntime {ort.__version__}, {args.rounds} rounds of {args.runs} passes per model and thread count",
          flush=True)
    rng = np.random.default_rng(0)
    for threads in (1, 2):
        sessions = []
        for model, manifest, onnx_path in models:
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
            side = manifest["preprocessing"]["inputSize"]
            x = rng.uniform(-1, 1, (1, 3, side, side)).astype(np.float32)
            for _ in range(5):
                session.run(None, {"input": x})
            sessions.append((model, session, x))
        medians = {model: [] for model, _, _ in sessions}
        for r in range(args.rounds):
            order = sessions if r % 2 == 0 else sessions[::-1]
            for model, session, x in order:
                times = []
                for _ in range(args.runs):
                    t = time.perf_counter()
                    session.run(None, {"input": x})
                    times.append((time.perf_counter() - t) * 1000)
                medians[model].append(statistics.median(times))
        base = medians.get("lite0")
        for model, values in medians.items():
            ratio = (f", {statistics.median(v / b for v, b in zip(values, base)):.2f}x Lite0 (median of round ratios)"
                     if base and model != "lite0" else "")
            print(f"{threads} thread{'s' if threads > 1 else ''}: {model} {statistics.median(values):.2f} ms "
                  f"(rounds {min(values):.2f}-{max(values):.2f}){ratio}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
