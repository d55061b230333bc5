#!/usr/bin/env python3
"""DexTextRecognition vs the tesseract command line on one 12 MP photo of printed text.

Usage: bench.py OURS_BINARY WORK_DIR [PAIRS]

Renders a 4000x3000 photo of a printed page (Scripts/text-photo.py), then runs the two sides
alternately, PAIRS times (default 7), each as its own process under /usr/bin/time -v:
  ours: dex-text-bench PHOTO  (process start, PNG decode by DexImaging, Tesseract Init,
        recognition through TesseractTextRecognizer, lines with boxes and confidences)
  peer: tesseract PHOTO OUT   (process start, PNG decode by Leptonica, Init, recognition,
        writing OUT.txt)
Both use the same libtesseract and eng.traineddata, with the library's default OpenMP threads.
Prints each side's median wall time and peak RSS, the ratio ours/peer, both sides' word accuracy
against the printed text; then, from 3 more runs of ours with --warm, its split (decode, first
recognition with Init, a second recognition on the pooled engine: the cost of Init per call).
"""

import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(command):
    """Runs command under /usr/bin/time -v: (stdout, wall seconds, peak RSS in KiB)."""
    result = subprocess.run(
        ["/usr/bin/time", "-v"] + command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed ({result.returncode}): {result.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)",
                     result.stderr)
    hours, minutes, seconds = wall.groups()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
    return result.stdout, int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), rss


def words(text):
    return [w.strip(".,;:!?'\"()").lower() for w in text.split() if w.strip(".,;:!?'\"()")]


def accuracy(expected, got):
    have = {}
    for word in words(got):
        have[word] = have.get(word, 0) + 1
    found = 0
    want = words(expected)
    for word in want:
        if have.get(word, 0) > 0:
            have[word] -= 1
            found += 1
    return found / len(want)


def main():
    ours, work = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    os.makedirs(work, exist_ok=True)
    photo = os.path.join(work, "page-12mp.png")
    rendered = subprocess.run(
        ["/usr/bin/python3", os.path.join(ROOT, "Scripts/text-photo.py"), "page", photo,
         "--size", "40", "--canvas", "4000x3000", "--rotate", "2"],
        capture_output=True, text=True, check=True)
    printed = json.loads(rendered.stdout)["text"]
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"Model name:\s*(.+)", cpu).group(1).strip()
    print(f"processor: {model}, {os.cpu_count()} CPUs")
    print(f"photo: {photo} (4000x3000, {os.path.getsize(photo)} bytes PNG, ~40 px text)")

    ours_times, peer_times, ours_rss, peer_rss = [], [], [], []
    ours_text = peer_text = ""
    split = []
    for index in range(pairs):
        # Alternate which side goes first so that neither always runs on a warmer cache.
        order = ["ours", "peer"] if index % 2 == 0 else ["peer", "ours"]
        for side in order:
            if side == "ours":
                out, wall, rss = timed([ours, photo])
                ours_text = json.loads(out)["text"]
                ours_times.append(wall)
                ours_rss.append(rss)
            else:
                base = os.path.join(work, "peer")
                _, wall, rss = timed(["tesseract", photo, base])
                with open(base + ".txt", encoding="utf-8") as handle:
                    peer_text = handle.read()
                peer_times.append(wall)
                peer_rss.append(rss)
        print(f"pair {index + 1}: ours {ours_times[-1]:.2f} s, tesseract {peer_times[-1]:.2f} s")

    # Ours' split, apart from the pairs: the same call twice in one process, the second on the
    # pooled engine, so first minus warm is what Tesseract's Init costs a call.
    for _ in range(3):
        out, _, _ = timed([ours, photo, "--warm"])
        split.append(json.loads(out))

    ours_median = statistics.median(ours_times)
    peer_median = statistics.median(peer_times)
    print()
    print(f"{'side':<12}{'median s':>10}{'peak RSS MiB':>14}{'word accuracy':>15}")
    print(f"{'ours':<12}{ours_median:>10.2f}{max(ours_rss) / 1024:>14.1f}"
          f"{accuracy(printed, ours_text):>15.3f}")
    print(f"{'tesseract':<12}{peer_median:>10.2f}{max(peer_rss) / 1024:>14.1f}"
          f"{accuracy(printed, peer_text):>15.3f}")
    print(f"ratio ours/peer (median wall time): {ours_median / peer_median:.3f}")
    first = statistics.median(float(r["firstRecognitionMs"]) for r in split)
    warm = statistics.median(float(r["warmRecognitionMs"]) for r in split)
    print("ours, median of 3 runs with --warm: decode {:.0f} ms, first recognition (with Init) "
          "{:.0f} ms, second recognition on the pooled engine {:.0f} ms (Init ~{:.0f} ms)".format(
              statistics.median(float(r["decodeMs"]) for r in split), first, warm, first - warm))


if __name__ == "__main__":
    main()
