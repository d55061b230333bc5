#!/usr/bin/env python3
"""HEIC / AVIF / WebP: decode + downscale to 1024 px + JPEG encode (quality 80), ours beside
libvips (`vips thumbnail`) and Pillow (+ pillow-heif), same files, one run.

    Benchmarks/DexImaging/formats.sh     (builds ours, makes the photos, runs this)

ours vs vips: both are one-shot processes that read the file, decode, downscale, encode and write
a JPEG (ours: DexImagingBenchmark with one cold iteration; vips: `vips thumbnail in out.jpg[Q=80]
1024`). They run in PAIRS (alternating which goes first) so that a load spike from a neighbour on
the shared machine hits both sides of a pair; the ratio is the median of the per-pair ratios.
Wall time and peak RSS (wait4 ru_maxrss) of each process.

Pillow: its own process times the in-process call (median of ROUNDS after one warm-up:
Image.open + draft + thumbnail(LANCZOS) + save), printed beside ours' in-process median; shown for
reference (Python start-up excluded), where the format is readable.
"""
import io
import json
import os
import statistics
import subprocess
import sys
import time

ROUNDS = int(os.environ.get("ROUNDS", "9"))
SIZE = 1024
QUALITY = 80


def run_child(argv, env=None):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    if status != 0:
        raise RuntimeError(f"{argv[0]} failed: {err.strip()[-300:]}")
    return wall, usage.ru_maxrss / 1024.0, out


def pillow_worker(path):
    from PIL import Image
    try:
        import pillow_heif
        pillow_heif.register_heif_opener()
    except ImportError:
        pass
    data = open(path, "rb").read()

    def once():
        im = Image.open(io.BytesIO(data))
        im.draft("RGB", (SIZE, SIZE))
        im = im.convert("RGB")
        im.thumbnail((SIZE, SIZE), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        im.save(buf, "JPEG", quality=QUALITY)
        return buf.getvalue()

    once()
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        once()
        times.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"median_ms": statistics.median(times)}))


def main(photo_dir, ours, work):
    os.makedirs(work, exist_ok=True)
    photos = sorted(f for f in os.listdir(photo_dir) if f.endswith((".heic", ".avif", ".webp")))
    cold = dict(os.environ, DEX_BENCH_WARMUPS="0")
    header = (f"{'photo':26} {'MP':>5} {'ours ms':>8} {'vips ms':>8} {'ratio':>6} {'RSS ours/vips MB':>17} "
              f"{'in-proc ours':>12} {'Pillow':>8} {'RSS Pil':>8} {'target':>7}")
    print(header)
    print("-" * len(header))
    misses = 0
    for name in photos:
        path = os.path.join(photo_dir, name)
        out_ours = os.path.join(work, name + ".ours.jpg")
        out_vips = os.path.join(work, name + ".vips.jpg")
        ours_cmd = [ours, path, str(SIZE), str(QUALITY / 100), "1", out_ours]
        vips_cmd = ["vips", "thumbnail", path, f"{out_vips}[Q={QUALITY}]", str(SIZE)]
        ratios, ours_ms, vips_ms, ours_rss, vips_rss = [], [], [], [], []
        for round_index in range(ROUNDS + 1):
            pair = [("ours", ours_cmd, cold), ("vips", vips_cmd, None)]
            if round_index % 2:
                pair.reverse()
            result = {}
            for kind, argv, env in pair:
                result[kind] = run_child(argv, env)
            if round_index == 0:
                continue  # warm the page cache and the libraries' files
            ratios.append(result["ours"][0] / result["vips"][0])
            ours_ms.append(result["ours"][0])
            vips_ms.append(result["vips"][0])
            ours_rss.append(result["ours"][1])
            vips_rss.append(result["vips"][1])
        # Ours in-process (median of ROUNDS after 2 warm-ups) and Pillow's, for reference.
        _, _, text = run_child([ours, path, str(SIZE), str(QUALITY / 100), str(ROUNDS), out_ours])
        info = json.loads(text.strip().splitlines()[-1])
        def header(field):
            return float(subprocess.check_output(["vipsheader", "-f", field, path], stderr=subprocess.DEVNULL))
        megapixels = header("width") * header("height") / 1e6
        try:
            _, pil_rss, pil_text = run_child([sys.executable, __file__, "--pillow", path])
            pil = f"{json.loads(pil_text.strip().splitlines()[-1])['median_ms']:8.1f} {pil_rss:8.0f}"
        except RuntimeError:
            pil = f"{'n/a':>8} {'-':>8}"
        ratio = statistics.median(ratios)
        met = ratio <= 1.0
        misses += 0 if met else 1
        rss = f"{max(ours_rss):.0f}/{max(vips_rss):.0f}"
        print(f"{name[:26]:26} {megapixels:5.1f} {statistics.median(ours_ms):8.1f} "
              f"{statistics.median(vips_ms):8.1f} {ratio:6.2f} {rss:>17} {info['median_ms']:12.1f} "
              f"{pil} {'met' if met else 'MISSED':>7}", flush=True)
    print()
    print(f"ours/vips: median of {ROUNDS} paired one-shot process runs (order alternating, after one "
          "untimed pair), wall ms; RSS = peak of each process. in-proc ours / Pillow: median of "
          f"{ROUNDS} in-process calls after warm-up. target: ratio <= 1.0 for every format.")
    print(f"targets missed: {misses}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--pillow":
        pillow_worker(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3])
