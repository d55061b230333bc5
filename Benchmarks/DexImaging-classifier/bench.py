#!/usr/bin/env python3
"""DexImaging classifier vs onnxruntime, same weights, same machine, one run.

  pip install numpy pillow onnx onnxruntime
  nice -n 10 python3 Benchmarks/DexImaging-classifier/bench.py [--runs 60] [--rounds 6] [--image cat]

1. Builds ClassifierBench (release) against this checkout and exports the converted
   EfficientNet-Lite0 weights (the same float16-rounded, BatchNorm-folded tensors the Swift code
   loads) to ONNX with the `onnx` package, checking that onnxruntime's logits match the numpy
   reference.
2. Times, for 1 and 2 threads, the network alone and end to end from the image file's bytes:
   - ours: one request at a time, each inference spread over K cores (`--threads K`);
   - onnxruntime: intra_op_num_threads = K on one request at a time (its end to end is Pillow
     decode + bicubic resize + normalisation + inference);
   plus a throughput row: ours with 2 single-threaded requests in flight (`--concurrency 2`).
   The two sides take turns in `--rounds` alternating rounds (the shared host's speed drifts
   over seconds).
3. Prints median and p95 latency per image, the ratio ours / onnxruntime (of the pooled medians,
   and the median of the per-round ratios, which compares both under the same conditions) and
   each process's peak RSS (each side runs in its own child process).
4. Paired passes (`--pairs`, the network alone): both sides run as servers that do one pass per
   request, pinned to the same CPU for 1 thread, and the script alternates single passes between
   them (who goes first alternates too). Each pair of passes sees the same host conditions
   within a few tens of milliseconds, so the median of the per-pair ratios is the comparison
   least moved by other tenants' load, which on this shared VM changes from second to second.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "Tests", "DexImagingTests", "Classifier", "Fixtures")


def reference_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("ref", os.path.join(ROOT, "Scripts", "classifier-reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def export_onnx(path, resources=None, stem="EfficientNetLite0"):
    """Writes the converted weights (the package's Lite0 unless `resources` names a folder of
    Scripts/classifier-convert.py --model output) as an NCHW ONNX graph with static TF-SAME pads."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    ref = reference_module()
    manifest, t = ref.load_model(resources or ref.RESOURCES, stem)
    input_size = manifest["preprocessing"]["inputSize"]
    nodes, inits = [], []
    counter = [0]

    def name(prefix):
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def init(array, prefix):
        n = name(prefix)
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array.astype(np.float32)), n))
        return n

    def conv(x, w_oihw, b, stride, size, group=1, relu=True):
        k = w_oihw.shape[2]
        out, before, after = ref.same_pad(size, k, stride)
        y = name("conv")
        nodes.append(helper.make_node(
            "Conv", [x, init(w_oihw, "w"), init(b, "b")], [y], kernel_shape=[k, k],
            strides=[stride, stride], pads=[before, before, after, after], group=group))
        if relu:
            z = name("relu6")
            nodes.append(helper.make_node("Clip", [y, lo, hi], [z]))
            y = z
        return y, out

    lo, hi = "zero", "six"
    inits.append(numpy_helper.from_array(np.array(0, dtype=np.float32), lo))
    inits.append(numpy_helper.from_array(np.array(6, dtype=np.float32), hi))
    x, size = conv("input", t["stem.weight"].transpose(3, 2, 0, 1), t["stem.bias"], 2, input_size)
    for i, block in enumerate(manifest["architecture"]["blocks"]):
        inp = x
        if block["expand"] != 1:
            w = t[f"blocks.{i}.expand.weight"].T[:, :, None, None]
            x, size = conv(x, w, t[f"blocks.{i}.expand.bias"], 1, size)
        dw = t[f"blocks.{i}.depthwise.weight"].transpose(2, 0, 1)[:, None]
        x, size = conv(x, dw, t[f"blocks.{i}.depthwise.bias"], block["stride"], size, group=dw.shape[0])
        w = t[f"blocks.{i}.project.weight"].T[:, :, None, None]
        x, size = conv(x, w, t[f"blocks.{i}.project.bias"], 1, size, relu=False)
        if block["stride"] == 1 and block["inputChannels"] == block["outputChannels"]:
            y = name("add")
            nodes.append(helper.make_node("Add", [x, inp], [y]))
            x = y
    x, size = conv(x, t["head.weight"].T[:, :, None, None], t["head.bias"], 1, size)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"]))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", init(t["classifier.weight"], "fc_w"),
                                           init(t["classifier.bias"], "fc_b")], ["logits"]))
    graph = helper.make_graph(
        nodes, manifest["model"].replace("-", "_"),
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, input_size, input_size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return ref


def summary(values):
    v = sorted(values)
    return statistics.median(v), v[max(0, int(round(0.95 * len(v))) - 1)]


def run_child(args):
    """Runs a child process; returns (stdout, peak RSS in MiB of that child)."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{args[0]} failed with status {status}")
    return out, usage.ru_maxrss / 1024


def export_worker(onnx_path, image):
    """Child process: exports the ONNX model, prints the numpy reference logits of `image`."""
    import numpy as np
    ref = export_onnx(onnx_path)
    rgb = np.frombuffer(open(image, "rb").read()[-256 * 256 * 3:], dtype=np.uint8).reshape(256, 256, 3)
    print(json.dumps([float(v) for v in ref.forward(ref.load_model(), ref.preprocess(rgb))]))


def onnx_session(model_path, threads):
    """An onnxruntime session running on `threads` threads, one request at a time."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"]), ort


def onnx_server(model_path, image_path, threads):
    """Child process: prints "ready", then times one inference per line read, printing its ms.

    Its input is the numpy reference's preprocessing of the fixture (the network's time does not
    depend on the values), not `onnx_worker`'s Pillow path, which only the end-to-end row times.
    """
    import numpy as np

    session, _ = onnx_session(model_path, threads)
    rgb = np.frombuffer(open(image_path, "rb").read()[-256 * 256 * 3:], dtype=np.uint8)
    x = reference_module().preprocess(rgb.reshape(256, 256, 3)).transpose(2, 0, 1)[None].copy()
    for _ in range(5):
        session.run(None, {"input": x})
    print("ready", flush=True)
    for _ in sys.stdin:
        t = time.perf_counter()
        session.run(None, {"input": x})
        print((time.perf_counter() - t) * 1000, flush=True)


def paired(ours_command, peer_command, pairs, cpus, gap=0.0):
    """Alternates single passes of two one-pass-per-request servers (ours and onnxruntime here, two
    builds in ab.py) and returns both sides' times in ms. `gap` seconds pass before each pass, so
    that the other side's idle threads have stopped spinning (onnxruntime's spin after a pass and
    would otherwise take the cores the next pass runs on)."""
    pin = ["taskset", "-c", cpus] if cpus else []
    sides = []
    times = ([], [])
    try:
        for command in (ours_command, peer_command):
            sides.append(subprocess.Popen(pin + command, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True, bufsize=1))
            if sides[-1].stdout.readline().strip() != "ready":
                raise SystemExit(f"{' '.join(command)} did not start (a build without --serve?)")
        for n in range(pairs):
            for i in ((0, 1) if n % 2 == 0 else (1, 0)):
                if gap:
                    time.sleep(gap)
                sides[i].stdin.write("\n")
                line = sides[i].stdout.readline()
                if not line:
                    raise SystemExit(f"{' '.join(sides[i].args[len(pin):])} stopped "
                                     f"(exit status {sides[i].wait()})")
                times[i].append(float(line))
    finally:
        for side in sides:
            side.stdin.close()
            side.wait()
    return times


def onnx_worker(model_path, image_path, runs, threads):
    """Child process: times onnxruntime, prints JSON."""
    import io

    import numpy as np
    from PIL import Image

    session, ort = onnx_session(model_path, threads)
    data = open(image_path, "rb").read()

    def preprocess(blob):
        image = Image.open(io.BytesIO(blob)).convert("RGB")
        w, h = image.size
        side = max(1, round(min(w, h) * 224 / 256))
        x0, y0 = (w - side) // 2, (h - side) // 2
        image = image.resize((224, 224), Image.BICUBIC, box=(x0, y0, x0 + side, y0 + side))
        a = (np.asarray(image, dtype=np.float32) - 127.0) / 128.0
        return a.transpose(2, 0, 1)[None].copy()

    x = preprocess(data)
    for _ in range(3):
        session.run(None, {"input": x})
    network, end_to_end = [], []
    for _ in range(runs):
        t = time.perf_counter()
        session.run(None, {"input": x})
        network.append((time.perf_counter() - t) * 1000)
    for _ in range(runs):
        t = time.perf_counter()
        session.run(None, {"input": preprocess(data)})
        end_to_end.append((time.perf_counter() - t) * 1000)
    logits = session.run(None, {"input": x})[0][0]
    print(json.dumps({"network": network, "endToEnd": end_to_end, "logits": [float(v) for v in logits],
                      "version": ort.__version__}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=6,
                        help="alternating rounds per side; --runs is split between them")
    parser.add_argument("--image", default="cat")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--swift-flags", default="", help="extra flags for swift build, e.g. "
                        "'-Xswiftc -target-cpu -Xswiftc x86-64-v3'")
    parser.add_argument("--backend", default="automatic", choices=["automatic", "oneDNN", "portable"],
                        help="ClassifierBench --backend: which of our backends runs")
    parser.add_argument("--precision", default="default", choices=["default", "float32", "int8"],
                        help="ClassifierBench --precision: int8 (the default configuration's) is granted "
                             "where the processor has VNNI")
    parser.add_argument("--gap-ms", type=float, default=20,
                        help="pause before each paired pass (0: back to back)")
    parser.add_argument("--pairs", type=int, default=400,
                        help="paired single passes per thread count (0: none, else at least 2)")
    parser.add_argument("--onnx-worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--onnx-server", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--export-worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pairs == 1:
        parser.error("--pairs must be 0 or at least 2")
    if args.export_worker:
        export_worker(*args.export_worker)
        return
    if args.onnx_server:
        model, image, threads = args.onnx_server
        onnx_server(model, image, int(threads))
        return
    if args.onnx_worker:
        model, image, runs, threads = args.onnx_worker
        onnx_worker(model, image, int(runs), int(threads))
        return

    # The parent stays small (no numpy, no onnx): a child's peak RSS starts from its parent's,
    # since Linux keeps the high-water mark across fork and exec.
    work = os.path.join(ROOT, "Benchmarks", ".work")
    os.makedirs(work, exist_ok=True)
    image = os.path.join(FIXTURES, args.image + ".ppm")
    # Without manifest caching SwiftPM rescans the DexKit checkout it depends on by path: with it,
    # a source file added there since the last build is silently left out of the build.
    package = os.path.join(ROOT, "Benchmarks")
    build = ["swift", "build", "-c", "release", "--package-path", package,
             "--product", "ClassifierBench",
             "--disable-build-manifest-caching"] + args.swift_flags.split()
    if args.swift_flags:
        build += ["--scratch-path", os.path.join(package, ".build-flags")]
    if not args.skip_build:
        subprocess.run(["flock", "/tmp/dexkit-build.lock"] + build, check=True, stdout=subprocess.DEVNULL)
    binary = subprocess.run(build + ["--show-bin-path"], check=True, capture_output=True,
                            text=True).stdout.strip()
    binary = os.path.join(binary, "ClassifierBench")
    ours_command = [binary, "--backend", args.backend]
    if args.precision != "default":
        ours_command += ["--precision", args.precision]

    onnx_path = os.path.join(work, "efficientnet-lite0.onnx")
    expected_path = os.path.join(work, "expected.json")
    subprocess.run([sys.executable, __file__, "--export-worker", onnx_path, image], check=True,
                   stdout=open(expected_path, "w"))
    expected = json.load(open(expected_path))

    # The host is shared and its speed drifts over seconds, so the two sides take turns: each of
    # `rounds` rounds runs ours and onnxruntime back to back (alternating who goes first), and
    # besides the pooled medians the table gives the median of the per-round ratios, which
    # compares the two under the same conditions.
    rows = []
    rounds = max(1, args.rounds)
    per_round = max(10, -(-args.runs // rounds))
    for threads in (1, 2):
        pooled = {"ours": {"network": [], "endToEnd": []}, "peer": {"network": [], "endToEnd": []}}
        ratios = {"network": [], "endToEnd": []}
        ours_rss = peer_rss = 0.0
        for r in range(rounds):
            results = {}
            for side in (("ours", "peer") if r % 2 == 0 else ("peer", "ours")):
                if side == "ours":
                    out, rss = run_child(ours_command + [image, "--runs", str(per_round), "--threads", str(threads)])
                    ours_rss = max(ours_rss, rss)
                else:
                    out, rss = run_child([sys.executable, __file__, "--onnx-worker", onnx_path, image,
                                          str(per_round), str(threads)])
                    peer_rss = max(peer_rss, rss)
                results[side] = json.loads(out)
            ours, peer = results["ours"], results["peer"]
            drift = max(abs(a - b) for a, b in zip(peer["logits"], expected))
            if drift > 0.05:
                raise SystemExit(f"onnxruntime logits differ from the numpy reference by {drift}")
            for what in ("network", "endToEnd"):
                pooled["ours"][what] += ours[what]
                pooled["peer"][what] += peer[what]
                ratios[what].append(statistics.median(ours[what]) / statistics.median(peer[what]))
        for what in ("network", "endToEnd"):
            om, op = summary(pooled["ours"][what])
            pm, pp = summary(pooled["peer"][what])
            rows.append((threads, what, om, op, pm, pp, om / pm, statistics.median(ratios[what]),
                         ours_rss, peer_rss))
    both_out, both_rss = run_child(ours_command + [image, "--runs", str(args.runs), "--concurrency", "2"])
    both = json.loads(both_out)
    flags = f", swift flags '{args.swift_flags}'" if args.swift_flags else ""
    print(f"image {args.image}.ppm{flags}, backend {args.backend}, {rounds} rounds x {per_round} runs per side, "
          f"onnxruntime {peer['version']}, "
          f"ours {ours.get('backend', '?')} isa {ours.get('isa', '?')} {ours.get('precision', '?')}, "
          f"ONEDNN_MAX_CPU_ISA={os.environ.get('ONEDNN_MAX_CPU_ISA', 'unset')}, "
          f"ours top-1 '{ours['top1']}', weights load {ours['loadMs']:.0f} ms, "
          f"onnxruntime vs numpy max |dlogit| {drift:.4f}")
    print("| threads | measure | ours median ms | ours p95 ms | onnxruntime median ms | onnxruntime p95 ms "
          "| ours/onnxruntime (pooled medians) | ours/onnxruntime (median of round ratios) "
          "| ours peak RSS MiB | onnxruntime peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for threads, what, om, op, pm, pp, ratio, round_ratio, orss, prss in rows:
        print(f"| {threads} | {what} | {om:.1f} | {op:.1f} | {pm:.1f} | {pp:.1f} | {ratio:.2f} "
              f"| {round_ratio:.2f} | {orss:.0f} | {prss:.0f} |")
    bm, bp = summary(both["network"])
    print(f"\nours, 2 single-threaded requests in flight: network median {bm:.1f} ms, p95 {bp:.1f} ms "
          f"per image ({2000 / bm:.0f} images/s), peak RSS {both_rss:.0f} MiB")
    if args.pairs > 0:
        print(f"\npaired single passes, network ({args.pairs} pairs, {args.gap_ms:g} ms before each pass; "
              "1 thread: both pinned to CPU 0, 2 threads: not pinned)")
        print("| threads | ours median ms | onnxruntime median ms "
              "| ours/onnxruntime (median of pair ratios) | pair ratios p25–p75 |")
        print("|---|---|---|---|---|")
        for threads in (1, 2):
            ours_times, peer_times = paired(
                ours_command + [image, "--threads", str(threads), "--warmup", "5", "--serve"],
                [sys.executable, __file__, "--onnx-server", onnx_path, image, str(threads)],
                args.pairs, "0" if threads == 1 else None, args.gap_ms / 1000)
            p25, median, p75 = statistics.quantiles(
                [o / p for o, p in zip(ours_times, peer_times)], n=4)
            print(f"| {threads} | {statistics.median(ours_times):.1f} | "
                  f"{statistics.median(peer_times):.1f} | {median:.2f} | {p25:.2f}–{p75:.2f} |")


if __name__ == "__main__":
    main()
