#!/usr/bin/env python3
"""Builds of ours beside onnxruntime, pass by pass, on an idle host or one with busy processes.

  python3 Benchmarks/DexImaging-classifier/load.py [--threads 2] [--passes 100] [--load N]
      [--side NAME=BINARY[,VAR=VALUE...] ...] [--gap 0.02]

Starts one `ClassifierBench --serve` server per side (default: this checkout's release build,
"ours"; `--side` names others, each a binary and environment variables for it, such as an older
build with `OMP_WAIT_POLICY=ACTIVE`) plus an onnxruntime server (bench.py's). Each side's single
network passes are paired with onnxruntime's (who goes first alternates), rotating through the
sides, so every side sees the same host conditions; `--gap` seconds pass before each pass (so
that the previous one's idle threads have settled). `--load N` keeps N busy-loop processes
(`sh -c "while :; do :; done"`) running meanwhile. Prints each side's median ms, the median of
its pair ratios to onnxruntime (p25–p75), and that over the first side's. Run after bench.py
(it exports the ONNX model to Benchmarks/.work and builds ClassifierBench). One thread:
`taskset -c 0 python3 ... --threads 1` pins every side.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
FIXTURES = os.path.join(ROOT, "Tests", "DexImagingTests", "Classifier", "Fixtures")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=100, help="per setting, at least 2")
    parser.add_argument("--image", default="cat")
    parser.add_argument("--gap", type=float, default=0.02, help="seconds before each pass")
    parser.add_argument("--load", type=int, default=0, help="busy-loop processes alongside")
    parser.add_argument("--side", action="append", default=[],
                        help="NAME=BINARY[,VAR=VALUE...]; default: ours=this checkout's build")
    args = parser.parse_args()
    if args.passes < 2:
        parser.error("--passes must be at least 2")
    photo = os.path.join(FIXTURES, args.image + ".ppm")
    onnx = os.path.join(ROOT, "Benchmarks", ".work", "efficientnet-lite0.onnx")
    default = os.path.join(ROOT, "Benchmarks", ".build", "release", "ClassifierBench")
    commands = []
    for side in args.side or [f"ours={default}"]:
        name, _, rest = side.partition("=")
        binary, *variables = rest.split(",")
        env = dict(os.environ, **dict(v.split("=", 1) for v in variables))
        commands.append((name, ["nice", "-n", "10", binary, photo, "--threads", str(args.threads),
                                "--warmup", "5", "--serve"], env))
    peer = ["nice", "-n", "10", sys.executable, os.path.join(HERE, "bench.py"), "--onnx-server",
            onnx, photo, str(args.threads)]
    commands.append(("onnxruntime", peer, dict(os.environ)))
    busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(args.load)]
    sides, times = [], [[] for _ in commands]
    ratios = [[] for _ in commands[:-1]]
    try:
        for name, command, env in commands:
            sides.append(subprocess.Popen(command, env=env, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True, bufsize=1))
            if sides[-1].stdout.readline().strip() != "ready":
                raise SystemExit(f"{name} did not start")
        peer_side = len(sides) - 1
        for n in range(args.passes):
            for k in range(peer_side):
                s = (n + k) % peer_side
                for i in ((s, peer_side) if (n + k) % 2 == 0 else (peer_side, s)):
                    time.sleep(args.gap)
                    sides[i].stdin.write("\n")
                    line = sides[i].stdout.readline()
                    if not line:
                        raise SystemExit(f"{commands[i][0]} stopped")
                    times[i].append(float(line))
                ratios[s].append(times[s][-1] / times[peer_side][-1])
    finally:
        for process in busy:
            process.kill()
            process.wait()
        for side in sides:
            side.stdin.close()
            side.wait()
    print(f"{args.threads} thread(s), {args.passes} passes each, {args.load} busy process(es), "
          f"{args.gap * 1000:g} ms before each pass")
    print(f"| side | median ms | / onnxruntime (median of pair ratios, p25–p75) "
          f"| / {commands[0][0]} |")
    print("|---|---|---|---|")
    peer_times = times[-1]
    for (name, _, _), t, r in zip(commands, times, ratios):
        p25, median, p75 = statistics.quantiles(r, n=4)
        print(f"| {name} | {statistics.median(t):.2f} | {median:.2f} ({p25:.2f}–{p75:.2f}) "
              f"| {median / statistics.median(ratios[0]):.2f} |")
    print(f"| onnxruntime | {statistics.median(peer_times):.2f} | 1 | |")


if __name__ == "__main__":
    main()
