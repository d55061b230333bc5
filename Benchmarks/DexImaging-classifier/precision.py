#!/usr/bin/env python3
"""Would a reduced precision keep the classifier's top-5? A numpy check before building one.

  python3 Benchmarks/DexImaging-classifier/precision.py [bf16] [bf16-body]

Runs the float64 reference (Scripts/classifier-reference.py) on the 8 fixture photos with the
weights and every activation rounded to bfloat16 (round to nearest even; accumulation, bias,
ReLU6 and the residual sums in full precision, as oneDNN's bf16 convolutions do), and prints per
fixture the largest logit difference, whether the ordered top-5 is the reference's, and the
smallest gap between neighbours among the reference's first six logits. `bf16-body` keeps the
head and the classifier in full precision.
"""

import importlib.util
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "DexImagingTests", "Classifier", "Fixtures")
NAMES = ["cat", "dog", "fish", "flower", "fruit", "insect", "moss", "squirrel"]

spec = importlib.util.spec_from_file_location("ref", os.path.join(ROOT, "Scripts", "classifier-reference.py"))
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)


def bfloat16(x):
    """x rounded to the nearest bfloat16 (ties to even), as float64."""
    bits = np.asarray(x, dtype=np.float32).copy().view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return rounded.view(np.float32).astype(np.float64)


def forward(model, x, mode):
    manifest, t = model
    q = bfloat16
    x = q(ref.relu6(ref.conv2d(q(x), q(t["stem.weight"]), t["stem.bias"], 2)))
    for i, block in enumerate(manifest["architecture"]["blocks"]):
        block_input = x
        if block["expand"] != 1:
            x = q(ref.relu6(x @ q(t[f"blocks.{i}.expand.weight"]) + t[f"blocks.{i}.expand.bias"]))
        x = q(ref.relu6(ref.depthwise(x, q(t[f"blocks.{i}.depthwise.weight"]),
                                      t[f"blocks.{i}.depthwise.bias"], block["stride"])))
        y = x @ q(t[f"blocks.{i}.project.weight"]) + t[f"blocks.{i}.project.bias"]
        if block["stride"] == 1 and block["inputChannels"] == block["outputChannels"]:
            y = y + block_input
        x = q(y)
    if mode == "bf16-body":
        x = ref.relu6(x @ t["head.weight"] + t["head.bias"])
        return x.mean(axis=(0, 1)) @ t["classifier.weight"] + t["classifier.bias"]
    x = q(ref.relu6(x @ q(t["head.weight"]) + t["head.bias"]))
    return q(x.mean(axis=(0, 1))) @ q(t["classifier.weight"]) + t["classifier.bias"]


def read_ppm(path):
    data = open(path, "rb").read()
    magic, size, depth, pixels = data.split(b"\n", 3)
    width, height = map(int, size.split())
    return np.frombuffer(pixels, dtype=np.uint8).reshape(height, width, 3)


def main():
    modes = sys.argv[1:] or ["bf16", "bf16-body"]
    model = ref.load_model()
    kept = {mode: 0 for mode in modes}
    for name in NAMES:
        x = ref.preprocess(read_ppm(os.path.join(FIXTURES, name + ".ppm")))
        reference = ref.forward(model, x)
        top = list(np.argsort(-reference)[:5])
        first = np.sort(reference)[::-1][:6]
        line = [f"{name:9} gap {np.min(-np.diff(first)):.3f}"]
        for mode in modes:
            logits = forward(model, x, mode)
            same = list(np.argsort(-logits)[:5]) == top
            kept[mode] += same
            line.append(f"{mode}: max diff {np.max(np.abs(logits - reference)):.3f}, "
                        f"top-5 {'same' if same else 'DIFFERS'}")
        print(" | ".join(line))
    for mode in modes:
        print(f"{mode}: top-5 kept on {kept[mode]} of {len(NAMES)} fixtures")


if __name__ == "__main__":
    main()
