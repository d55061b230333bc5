#!/usr/bin/env python3
"""Damaged Tesseract language data: what Tesseract does with it, and what the shim's check does.

Writes damaged copies of the installed eng.traineddata (truncations, entry counts, offsets,
byte flips at fixed places in each LSTM component, a FIFO, a directory), then loads each and
reads a rendered line of text with it in a child process, twice: as Tesseract does on its own
("plain") and after `dex_traineddata_check` (Sources/CDexTextShim/traineddata.c, the check
TesseractTextRecognizer runs: the container, then a test load by dex-traineddata-probe, spawned
and exec'd). Prints how
each way ended (read, refused, crashed, hung) and the cases that still end the process.

    python3 Benchmarks/DexTextRecognition/damaged-data.py [WORK]

Needs libtesseract-dev, tesseract-ocr-eng, python3-pil and fonts-dejavu-core
(Scripts/bootstrap.sh installs them) and gcc.
"""
import collections
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHIM = os.path.join(ROOT, "Sources", "CDexTextShim")
TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"
NAMES = {17: "lstm", 18: "punc-dawg", 19: "word-dawg", 20: "number-dawg", 21: "unicharset",
         22: "recoder", 23: "version"}


def build(work):
    binary = os.path.join(work, "damaged-data")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tesseract", "lept"],
                           check=True, capture_output=True, text=True).stdout.split()
    # The shim's sources compile to nothing without the Tesseract trait's define (Package.swift).
    subprocess.run(["gcc", "-O1", "-DDEXKIT_TRAIT_TESSERACT", "-I", SHIM, "-I", os.path.join(SHIM, "include"), "-o", binary,
                    os.path.join(HERE, "damaged-data.c"), os.path.join(SHIM, "traineddata.c")]
                   + flags, check=True)
    probe = os.path.join(work, "dex-traineddata-probe")
    subprocess.run(["gcc", "-O1", "-DDEXKIT_TRAIT_TESSERACT", "-o", probe,
                    os.path.join(ROOT, "Sources", "DexTraineddataProbe", "main.c")] + flags,
                   check=True)
    return binary, probe


def render(path):
    from PIL import Image, ImageDraw, ImageFont
    image = Image.new("L", (900, 80), 255)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 36)
    ImageDraw.Draw(image).text((16, 16), "Hello DexKit, 2024: 17 cats & 3 dogs!", font=font, fill=0)
    image.save(path)


def cases(original):
    count = struct.unpack("<i", original[:4])[0]
    offsets = list(struct.unpack("<%dq" % count, original[4:4 + 8 * count]))

    def with_offset(index, value):
        changed = list(offsets)
        changed[index] = value
        return struct.pack("<i", count) + struct.pack("<%dq" % count, *changed) + original[4 + 8 * count:]

    def flipped(position):
        data = bytearray(original)
        data[position] ^= 0xFF
        return bytes(data)

    size = len(original)
    for n in (0, 10, 196, 200_000, size // 2, size - 1):
        yield f"truncated to {n} bytes", original[:n]
    for n in (0, 7, 25, 1001, 0xFFFFFFFF):
        yield f"entry count {n:#x}", struct.pack("<I", n) + original[4:]
    yield "lstm offset +1", with_offset(17, offsets[17] + 1)
    yield "lstm offset into the header", with_offset(17, 100)
    yield "lstm absent", with_offset(17, -1)
    yield "unicharset absent", with_offset(21, -1)
    yield "recoder absent", with_offset(22, -1)
    yield "word-dawg offset backwards", with_offset(19, offsets[18] - 1000)
    yield "number-dawg offset -5", with_offset(20, -5)
    yield "version offset past the end", with_offset(23, size + 100)
    yield "version offset 2^40", with_offset(23, 1 << 40)
    for index in range(17, 24):
        start = offsets[index]
        end = next((o for o in offsets[index + 1:] if o != -1), size)
        for at in sorted({0, 1, 3, 4, 8, 12, 16, 24, 32, (end - start) // 2, end - start - 1}):
            if at < end - start:
                yield f"{NAMES[index]} byte {at} flipped", flipped(start + at)
    yield "a FIFO", None
    yield "a directory", None


def run(binary, probe, mode, folder, image):
    def limits():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    process = subprocess.Popen([binary, mode, folder, image, probe], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, preexec_fn=limits)
    try:
        process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "hung"
    code = process.returncode
    if code < 0:
        return "crashed (" + signal.Signals(-code).name + ")"
    return {0: "read", 10: "refused by the check", 11: "refused by Tesseract"}.get(code, f"exit {code}")


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else "/tmp/dex-damaged-data"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    binary, probe = build(work)
    image = os.path.join(work, "line.png")
    render(image)
    original = open(os.path.join(TESSDATA, "eng.traineddata"), "rb").read()
    tally = {mode: collections.Counter() for mode in ("plain", "checked")}
    fatal = []
    for number, (name, data) in enumerate(cases(original)):
        folder = os.path.join(work, f"case{number}")
        os.makedirs(folder)
        path = os.path.join(folder, "eng.traineddata")
        if name == "a FIFO":
            os.mkfifo(path)
        elif name == "a directory":
            os.makedirs(path)
        else:
            open(path, "wb").write(data)
        outcomes = {mode: run(binary, probe, mode, folder, image) for mode in tally}
        for mode, outcome in outcomes.items():
            tally[mode][outcome.split(" (")[0]] += 1
        if outcomes["checked"].startswith(("crashed", "hung")):
            fatal.append((name, outcomes["checked"]))
        print(f"{name:34} plain: {outcomes['plain']:26} checked: {outcomes['checked']}")
    print()
    for mode, counts in tally.items():
        print(f"{mode:8} " + ", ".join(f"{outcome} {n}" for outcome, n in sorted(counts.items())))
    print("still fatal with the check: " + (", ".join(f"{n} ({o})" for n, o in fatal) or "none"))


if __name__ == "__main__":
    main()
