#!/usr/bin/env python3
"""OpenMP spin settings side by side, pass by pass, on an idle or a loaded host.

  python3 Benchmarks/DexImaging-classifier/spin.py [--threads 2] [--passes 100] [--load]
      [--spin 1000 10000 ...] [--binary PATH]

Starts one `ClassifierBench --serve` server per setting ("passive": OMP_WAIT_POLICY=PASSIVE set
by the host; "default": neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT set, the shim's choice; a
number N: GOMP_SPINCOUNT=N, OMP_WAIT_POLICY unset, which the shim then sets to PASSIVE while
libgomp starts unless the binary's shim leaves it alone; Benchmarks/HISTORY.md says which) plus
an onnxruntime server (bench.py's). Each setting's single network passes are paired with
onnxruntime's (who goes first alternates), rotating through the settings, so every setting
sees the same host conditions; `--gap` pauses after each pair (none by default, as bench.py).
`--load` keeps one busy-loop process (`sh -c "while :; do :; done"`) running meanwhile. Prints
each setting's median ms, the median of its pair ratios to onnxruntime (p25–p75), and that over
passive's. Run after bench.py (it exports the ONNX model to Benchmarks/.work and builds
ClassifierBench). One thread: `taskset -c 0 python3 ... --threads 1` pins every side.
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
    parser.add_argument("--gap", type=float, default=0.0, help="seconds after each pair")
    parser.add_argument("--load", action="store_true", help="one busy-loop process alongside")
    parser.add_argument("--spin", nargs="*", default=["1000", "10000", "30000", "100000"])
    parser.add_argument("--binary", default=os.path.join(ROOT, "Benchmarks", ".build", "release",
                                                          "ClassifierBench"))
    args = parser.parse_args()
    if args.passes < 2:
        parser.error("--passes must be at least 2")
    photo = os.path.join(FIXTURES, args.image + ".ppm")
    onnx = os.path.join(ROOT, "Benchmarks", ".work", "efficientnet-lite0.onnx")
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    settings = [("passive", {"OMP_WAIT_POLICY": "PASSIVE"}), ("default", {})]
    settings += [(f"spin {n}", {"GOMP_SPINCOUNT": n}) for n in args.spin]
    ours = ["nice", "-n", "10", args.binary, photo, "--threads", str(args.threads), "--warmup", "5",
            "--serve"]
    peer = ["nice", "-n", "10", sys.executable, os.path.join(HERE, "bench.py"), "--onnx-server",
            onnx, photo, str(args.threads)]
    commands = [(name, ours, dict(base, **env)) for name, env in settings]
    commands.append(("onnxruntime", peer, base))
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if args.load else None
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
                    sides[i].stdin.write("\n")
                    line = sides[i].stdout.readline()
                    if not line:
                        raise SystemExit(f"{commands[i][0]} stopped")
                    times[i].append(float(line))
                ratios[s].append(times[s][-1] / times[peer_side][-1])
                time.sleep(args.gap)
    finally:
        if busy:
            busy.kill()
            busy.wait()
        for side in sides:
            side.stdin.close()
            side.wait()
    print(f"{args.threads} thread(s), {args.passes} passes each, "
          f"{'one busy process' if args.load else 'no added load'}")
    print("| setting | median ms | / onnxruntime (median of pair ratios, p25–p75) | / passive |")
    print("|---|---|---|---|")
    peer_times = times[-1]
    for (name, _, _), t, r in zip(commands, times, ratios):
        p25, median, p75 = statistics.quantiles(r, n=4)
        print(f"| {name} | {statistics.median(t):.2f} | {median:.2f} ({p25:.2f}–{p75:.2f}) "
              f"| {median / statistics.median(ratios[0]):.2f} |")
    print(f"| onnxruntime | {statistics.median(peer_times):.2f} | 1 | |")


if __name__ == "__main__":
    main()
