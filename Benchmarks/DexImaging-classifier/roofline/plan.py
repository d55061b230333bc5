"""The classifier's own plan against the processor's peak: per layer group, from oneDNN's log.

Reads the output of `ONEDNN_VERBOSE=1 ClassifierBench <image> --threads 1 --skip-end-to-end`
(one file per round), splits it into passes (a pass starts at the stem after the classifier),
drops the first tenth as warm-up, and prints per group (stem, depthwise, 1x1 by resolution, the
classifier) the multiply-adds, the median time per pass and the share of `--peak` reached. The
steps are the plan's own: fused blocks' bands, 1x1 layers as matrix products, whatever oneDNN
picked for each.

    python3 plan.py --peak GFLOPS plan-0.txt [plan-1.txt ...]
"""
import argparse
import re
import statistics

CONV = re.compile(r"^(?:g(\d+))?mb1_ic(\d+)oc(\d+)_ih\d+oh(\d+)kh(\d+)sh\d+dh\d+ph\d+_iw\d+ow(\d+)kw(\d+)")
MATMUL = re.compile(r"^(\d+)x(\d+):(\d+)x(\d+):")


def step(fields):
    """(group, multiply-adds, microseconds) of one `onednn_verbose,exec` line, or None."""
    kind, problem, ms = fields[3], fields[-2], float(fields[-1])
    if kind == "convolution":
        g, ic, oc, oh, kh, ow, kw = CONV.match(problem).groups()
        per_output = (1 if g else int(ic)) * int(kh) * int(kw)
        macs = int(oc) * int(oh) * int(ow) * per_output
        group = "depthwise" if g else "stem" if int(kh) > 1 else f"1x1 at {ow}x{ow}"
    elif kind == "matmul":
        m, k, _, n = (int(v) for v in MATMUL.match(problem).groups())
        macs = m * k * n
        side = round(m ** 0.5)
        group = "classifier" if m == 1 else f"1x1 at {side}x{side}"
    elif kind.startswith("pooling"):
        macs, group = 0, "pooling"
    else:
        return None  # reorders happen while the plan is built
    return group, macs, ms * 1000


def passes(path):
    steps = [step(line.rstrip().split(",")) for line in open(path) if line.startswith("onednn_verbose,exec")]
    steps = [s for s in steps if s]
    runs, current = [], []
    for s in steps:
        if s[0] == "stem" and current and current[-1][0] == "classifier":
            runs.append(current)
            current = []
        current.append(s)
    if current and current[-1][0] == "classifier":
        runs.append(current)
    return runs[len(runs) // 10:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peak", type=float, required=True, help="one core's GFLOP/s")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    runs = [run for path in args.files for run in passes(path)]
    order, macs = [], {}
    for group, m, _ in runs[0]:
        if group not in macs:
            order.append(group)
            macs[group] = 0
        macs[group] += m
    times = {g: statistics.median(sum(us for grp, _, us in run if grp == g) for run in runs) for g in order}
    total_us = statistics.median(sum(us for _, _, us in run) for run in runs)
    print(f"the classifier's plan, one thread, {len(runs)} passes of {len(runs[0])} steps (median per pass)")
    print(f"{'group':14} {'M mult-adds':>12} {'µs':>8} {'GFLOP/s':>8} {'of peak':>8} {'share of time':>14}")
    for g in order:
        rate = 2 * macs[g] / times[g] / 1e3 if times[g] else 0
        print(f"{g:14} {macs[g] / 1e6:12.1f} {times[g]:8.0f} {rate:8.1f} {rate / args.peak:8.0%} {times[g] / total_us:14.0%}")
    total = sum(macs.values())
    rate = 2 * total / total_us / 1e3
    print(f"{'all':14} {total / 1e6:12.1f} {total_us:8.0f} {rate:8.1f} {rate / args.peak:8.0%}")


if __name__ == "__main__":
    main()
