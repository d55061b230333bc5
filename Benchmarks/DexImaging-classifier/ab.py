#!/usr/bin/env python3
"""Two ClassifierBench builds, pass by pass: the A/B measure for a kernel change on a shared host.

  python3 Benchmarks/DexImaging-classifier/ab.py OLD NEW [--pairs 600] [--image cat] [--threads 1]
      [--end-to-end]

OLD and NEW are ClassifierBench binaries (copy `Benchmarks/.build/release/ClassifierBench` away before
rebuilding; build an older commit in a `git worktree`). Both run as servers (`--serve`) pinned
to the same CPU, and the script alternates single network passes between them (who goes first
alternates too), so each pair of passes sees the same host conditions within a few tens of
milliseconds. With `--threads` above 1 they are not pinned (`--cpu` overrides either way). It prints both medians and the median of the per-pair ratios NEW / OLD with its
p25–p75. With --end-to-end each pass is the whole guess from the photo's pixels (every view the
calibration runs: two network passes on a plain background such as the fish's) instead of one
network pass. On this VM, whose speed other tenants move by a third from one second to the next,
600 pairs resolve about half a percent; separate timed runs of each build often disagree by ten.
"""

import argparse
import os
import statistics

from bench import paired

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "Tests", "DexImagingTests", "Classifier", "Fixtures")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--pairs", type=int, default=600, help="at least 2")
    parser.add_argument("--image", default="cat")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--end-to-end", action="store_true",
                        help="time the whole guess from the photo's pixels, not one network pass")
    parser.add_argument("--gap-ms", type=float, default=20,
                        help="pause before each pass, so the other side's threads settle (0: none)")
    parser.add_argument("--cpu", help="CPU list both sides are pinned to ('' for none; default "
                        "CPU 0 for one thread, none for more)")
    args = parser.parse_args()
    if args.pairs < 2:
        parser.error("--pairs must be at least 2")
    cpu = args.cpu if args.cpu is not None else ("0" if args.threads == 1 else "")
    photo = os.path.join(FIXTURES, args.image + ".ppm")

    def server(binary):
        return ["nice", "-n", "10", binary, photo, "--threads", str(args.threads), "--warmup", "5",
                "--serve-end-to-end" if args.end_to_end else "--serve"]

    # bench.py's driver for its paired table: start both, alternate single passes, close both.
    times = paired(server(args.old), server(args.new), args.pairs, cpu, args.gap_ms / 1000)
    ratios = [new / old for old, new in zip(*times)]
    p25, median, p75 = statistics.quantiles(ratios, n=4)
    what = "end to end" if args.end_to_end else "network"
    print(f"{args.image}, {what}, {args.threads} thread(s), {args.pairs} pairs: "
          f"old median {statistics.median(times[0]):.2f} ms, new {statistics.median(times[1]):.2f} ms; "
          f"new/old median of pair ratios {median:.3f} (p25 {p25:.3f}, p75 {p75:.3f})")


if __name__ == "__main__":
    main()
