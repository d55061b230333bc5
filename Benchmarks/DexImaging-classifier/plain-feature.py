#!/usr/bin/env python3
"""A calibration feature for plain backgrounds, measured against the shipped form (issue 43).

A photo counts as plain when at least 90 % of its border pixels, as the scanner sees them (alpha on
white, short side 256: classifier-evalset.py's load_rgb), lie within 12 levels of the border's
median. The form under test is the shipped one (each category scored by its best class, a log prior
per category, one temperature) with, for plain photos, its temperature scaled by a fitted factor
(`temp`) and also per-category prior offsets (`temp+prior`, ridge 0.01 like the priors); `base` is
the shipped form itself and reproduces `classifier-evalset.py report`'s figures. Each mode is fitted
and judged like `report`: the random split (fit on tune, test on held-out), the five folds by
source pooled, and the plain split judged by a fit on every other photo with a subject; the naming
threshold is chosen on the fitted photos.

  python3 Benchmarks/DexImaging-classifier/plain-feature.py DIR [--precision int8] [--tta mirror] [--mode temp]

DIR is classifier-evalset.py's folder (after its `fetch` and `logits`).
"""

import argparse
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    import numpy as np
    from scipy.optimize import minimize
    ev = load("evalset", os.path.join(ROOT, "Scripts", "classifier-evalset.py"))
    ref = load("ref", os.path.join(ROOT, "Scripts", "classifier-reference.py"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest")
    parser.add_argument("--precision", choices=["float32", "int8"], default="float32")
    parser.add_argument("--tta", choices=sorted(ev.TTA))
    parser.add_argument("--mode", choices=["base", "temp", "temp+prior"], default="temp")
    args = parser.parse_args()

    cats = ev.class_categories()
    matrix = ev.class_mass_matrix(cats)
    labels, tree = ev.label_names(), ev.load_tree()
    cache = ev.averaged(json.load(open(ev.logits_path(args.dest, args.precision))), args.tta)
    rows = [r for r in ev.read_manifest() if r["sha"] in cache and r["expected"] != "scene"]

    plainness = {r["sha"]: ev.border_plainness(ev.load_rgb(ref, os.path.join(args.dest, "images", r["sha"])))[0]
                 for r in rows}
    feature = lambda rs: np.array([[1.0 if plainness[r["sha"]] >= 0.9 else 0.0] for r in rs])
    logits = lambda rs: np.array([cache[r["sha"]]["logits"] for r in rs])
    k = len(ev.CATEGORIES)

    def distribution(x, log_mass, f):
        finite = np.isfinite(log_mass[0])
        scale = np.exp(x[k]) * (np.exp(f * x[k + 1]) if args.mode != "base" else 1.0)
        z = scale * np.where(finite, log_mass, 0) + x[:k] + (f * x[k + 2:] if args.mode == "temp+prior" else 0)
        z = np.where(finite, z, -np.inf)
        q = np.exp(z - z.max(axis=1, keepdims=True))
        return q / q.sum(axis=1, keepdims=True)

    def fit(train):
        log_mass = ev.log_category_mass(logits(train), matrix, ev.CLASS_TEMPERATURE)
        f = feature(train)
        y = np.array([ev.CATEGORIES.index(r["expected"]) for r in train])

        def loss(x):
            q = distribution(x, log_mass, f)
            ridge = 0.01 * (x[:k] ** 2).sum() + (0.01 * (x[k + 2:] ** 2).sum() if args.mode == "temp+prior" else 0)
            return -np.log(q[np.arange(len(y)), y] + 1e-15).mean() + ridge

        x = minimize(loss, np.zeros(2 * k + 2), method="L-BFGS-B").x
        return x, lambda test: distribution(x, ev.log_category_mass(logits(test), matrix, ev.CLASS_TEMPERATURE),
                                            feature(test))

    def judged(train, test):
        x, decide = fit(train)

        def named(rs, threshold):
            out = []
            for r, q in zip(rs, decide(rs)):
                c, confidence = ev.CATEGORIES[int(np.argmax(q))], float(q.max())
                probs = ev.softmax(np.array(cache[r["sha"]]["logits"]))
                out.append((r, c, confidence, ev.specific_name(probs, cats, tree, labels, c, confidence, threshold)[0]))
            return out

        threshold = next((t for t in ev.NAMING_THRESHOLDS
                          if sum(1 for r, c, _, n in named(train, t) if n and c != r["expected"]) <= 0.01 * len(train)),
                         ev.NAMING_THRESHOLDS[-1])
        return x, named(test, threshold)

    def summary(title, out):
        right = [c == r["expected"] for r, c, _, _ in out]
        sure = [ok for ok, (_, _, p, _) in zip(right, out) if p >= 0.7]
        wrong_named = sum(1 for r, c, _, n in out if n and c != r["expected"])
        print(f"  {title} ({len(out)}): coarse {sum(right)} = {np.mean(right):.3f}; confident (>= 0.7) and right "
              f"{sum(sure)}/{len(sure)} = {np.mean(sure):.3f}; ECE(10) {ev.ece([p for _, _, p, _ in out], right):.3f}; "
              f"specific names of a wrong category {wrong_named} = {wrong_named / len(out):.3f}")
        for r, c, p, n in out:
            if (p >= 0.7 or n) and c != r["expected"]:
                print(f"      {r['path'].rsplit('/', 1)[-1]} {r['expected']} -> {c} {p:.2f} {n!r}")

    fitting = ev.fitting_rows(rows)
    plain = [r for r in rows if r["split"] == ev.PLAIN]
    print(f"{args.precision}, views {ev.TTA[args.tta] if args.tta else 'none'}, mode {args.mode}; plain by the border: "
          f"{int(feature(fitting).sum())} of the {len(fitting)} fitting photos, {int(feature(plain).sum())} of the {len(plain)} plain ones")
    summary("random split, held-out", judged([r for r in fitting if r["split"] == "tune"],
                                             [r for r in fitting if r["split"] == "heldout"])[1])
    pooled = []
    for name, _ in ev.SOURCE_GROUPS:
        pooled += judged([r for r in fitting if ev.source_group(r) != name],
                         [r for r in fitting if ev.source_group(r) == name])[1]
    summary("by source, 5 folds pooled", pooled)
    x, out = judged(fitting, plain)
    summary("plain, fitted on every other photo", out)
    if args.mode != "base":
        print(f"  temperature factor for plain photos (fit on every other photo): {float(np.exp(-x[k + 1])):.3f}")


if __name__ == "__main__":
    main()
