#!/usr/bin/env python3
"""Writes the decode bombs of issues 28 and 38 and times ours on each, printing wall time and
peak RSS.

    hostile.py <DexImagingBenchmark binary> <work dir> [--reference <old binary>]

Each file is built here (zlib and struct from the standard library; the scan bomb starts from
Tests/DexImagingTests/Resources/small-progressive.jpg) and handed to DexImagingBenchmark (one
downscale to 1024 px, the `dex scan` path) under /usr/bin/time, one process per file, so the
peak RSS is that file's alone. The HEIF / AVIF rows of issue 38 (the hand-written box walk's
reproducers, now refused by libheif's own limits or the stream-size probe) are the files
Tests/DexImagingTests/HEIFReproducerTests.swift builds, committed as the fuzzer's seeds in
Scripts/fuzz-imaging/heif-seeds; the 16 MiB one is built here. A refused file stops at the first run, so its time is the whole
process's; an accepted one runs three times and also prints one run's median. With --reference, an older build of the same benchmark runs the
same files beside it (time limit 120 s each) and the table prints ours/reference.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png(path, width, height, bit_depth, color_type, row_bytes, interlaced=False):
    """A PNG of all-zero rows (filter 0), compressed as it is written; `row_bytes` is a full
    row's size (an interlaced image's seven passes have narrower rows)."""
    compressor = zlib.compressobj(9)
    data = []
    if interlaced:
        bytes_per_pixel = row_bytes // width
        passes = [((width - x0 + dx - 1) // dx, (height - y0 + dy - 1) // dy)
                  for x0, y0, dx, dy in ADAM7]
        images = [(1 + w * bytes_per_pixel, h) for w, h in passes if w > 0 and h > 0]
    else:
        images = [(1 + row_bytes, height)]
    for size, total in images:
        row = b"\0" * size
        batch = max(1, (8 << 20) // len(row))
        done = 0
        while done < total:
            n = min(batch, total - done)
            data.append(compressor.compress(row * n))
            done += n
    data.append(compressor.flush())
    idat = b"".join(data)
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 1 if interlaced else 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr))
        for start in range(0, len(idat), 1 << 20):
            out.write(chunk(b"IDAT", idat[start:start + (1 << 20)]))
        out.write(chunk(b"IEND", b""))


def scan_ranges(jpeg):
    ranges, position = [], 2
    while position + 4 <= len(jpeg) and jpeg[position] == 0xFF:
        marker = jpeg[position + 1]
        if marker == 0xD9:
            break
        length = (jpeg[position + 2] << 8) | jpeg[position + 3]
        end = position + 2 + length
        if marker == 0xDA:
            while end + 1 < len(jpeg):
                following = jpeg[end + 1]
                if jpeg[end] == 0xFF and following != 0 and not 0xD0 <= following <= 0xD7:
                    break
                end += 1
            ranges.append((position, end))
        position = end
    return ranges


def many_scans(path, scans):
    with open(os.path.join(ROOT, "Tests/DexImagingTests/Resources/small-progressive.jpg"), "rb") as f:
        jpeg = f.read()
    ranges = scan_ranges(jpeg)
    start, end = min(ranges, key=lambda r: r[1] - r[0])  # the smallest scan, repeated at the end
    body = jpeg[:ranges[-1][1]] + jpeg[start:end] * (scans - len(ranges)) + b"\xff\xd9"
    with open(path, "wb") as out:
        out.write(body)


def cmyk_jpeg(path, width, height, progressive):
    """An Adobe CMYK JPEG: header, a DC table, the first scan and its (all-zero) data."""
    be16 = lambda v: struct.pack(">H", v)
    out = b"\xff\xd8"
    out += b"\xff\xee" + be16(14) + b"Adobe" + bytes([0, 100, 0, 0, 0, 0, 0])
    out += b"\xff\xdb" + be16(67) + b"\0" + b"\1" * 64
    out += (b"\xff\xc2" if progressive else b"\xff\xc0") + be16(20) + b"\x08" + be16(height) + be16(width) + b"\x04"
    out += b"".join(bytes([i, 0x11, 0]) for i in range(1, 5))
    # A DC and an AC table, each with one 1-bit code: DC category 0, AC end-of-block.
    table = b"\x01" + b"\0" * 15 + b"\0"
    out += b"\xff\xc4" + be16(2 + 2 * 18) + b"\x00" + table + b"\x10" + table
    out += b"\xff\xda" + be16(14) + b"\x04" + b"".join(bytes([i, 0]) for i in range(1, 5))
    out += bytes([0, 0 if progressive else 63, 0])
    # Every block is one 0 bit (DC category 0), plus one more (EOB) in a baseline scan.
    blocks = 4 * ((width + 7) // 8) * ((height + 7) // 8)
    out += b"\0" * ((blocks * (1 if progressive else 2) + 7) // 8) + b"\xff\xd9"
    with open(path, "wb") as f:
        f.write(out)


def text_bomb(path, chunks):
    """A 64 x 64 grey PNG carrying `chunks` zTXt chunks that each inflate to 8 MB."""
    text = chunk(b"zTXt", b"Comment\0\0" + zlib.compress(b"A" * (8_000_000), 9))
    ihdr = struct.pack(">IIBBBBB", 64, 64, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"".join(b"\0" + b"\x80" * 64 for _ in range(64)))
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + text * chunks)
        out.write(chunk(b"IDAT", idat) + chunk(b"IEND", b""))


HEIF_SEEDS = os.path.join(ROOT, "Scripts/fuzz-imaging/heif-seeds")


def heif_seed(name):
    """A seed by file name: `.heic` or `.avif` as its `ftyp` brand says (what the error names)."""
    return lambda path: shutil.copyfile(os.path.join(HEIF_SEEDS, name), path)


def heif_extents_over(path, extents, padding):
    """HEIFReferenceTests.derivedImages(kind: "grid", ids: [1, 2], irefs: [[(1, [2])]],
    extents:, padding:): both items' data `extents` extents over one grid description followed
    by `padding` bytes (32 extents over 16 MiB took 1.1 GB under the walk's predecessor)."""
    be16, be32 = (lambda v: struct.pack(">H", v)), (lambda v: struct.pack(">I", v))
    box = lambda kind, body: be32(8 + len(body)) + kind + body
    full = lambda kind, body, version=0, flags=0: box(kind, bytes([version, 0, 0, flags]) + body)
    ids = [1, 2]
    ftyp = box(b"ftyp", b"avif" + be32(0) + b"avifmif1miaf")
    hdlr = full(b"hdlr", be32(0) + b"pict" + b"\0" * 13)
    pitm = full(b"pitm", be16(1))
    infes = b"".join(full(b"infe", be16(i) + be16(0) + b"grid\0", 2, 0 if i == 1 else 1) for i in ids)
    iinf = full(b"iinf", be16(len(ids)) + infes)
    iref = full(b"iref", box(b"dimg", be16(1) + be16(1) + be16(2)))
    iprp = box(b"iprp", box(b"ipco", full(b"ispe", be32(64) + be32(64)))
               + full(b"ipma", be32(len(ids)) + b"".join(be16(i) + b"\1\1" for i in ids)))
    grid = b"\0\0\0\0" + be16(64) + be16(64) + b"\0" * padding

    def meta(base):
        iloc = full(b"iloc", b"\x44\x00" + be16(len(ids)) + b"".join(
            be16(i) + be16(0) + be16(extents) + (be32(base) + be32(len(grid))) * extents for i in ids))
        return full(b"meta", hdlr + pitm + iloc + iinf + iref + iprp)

    base = len(ftyp) + len(meta(0)) + 8
    with open(path, "wb") as out:
        out.write(ftyp + meta(base) + box(b"mdat", grid))


FILES = [
    # name, builder, what the issue saw or what it checks
    ("wide-100000000x1.png", lambda p: png(p, 100_000_000, 1, 1, 0, 12_500_000), "68 s / 3.5 GB before"),
    ("tall-1x100000000.png", lambda p: png(p, 1, 100_000_000, 8, 0, 1), ">120 s / 3.5 GB before"),
    ("scans-3000.jpg", lambda p: many_scans(p, 3000), "thousands of scans"),
    ("scans-500.jpg", lambda p: many_scans(p, 500), "under the old limit of 1000"),
    ("cmyk-progressive-10000x10000.jpg", lambda p: cmyk_jpeg(p, 10_000, 10_000, True), "100 MP CMYK"),
    ("cmyk-baseline-10000x10000.jpg", lambda p: cmyk_jpeg(p, 10_000, 10_000, False), "100 MP CMYK, accepted"),
    ("interlaced-10000x10000.png", lambda p: png(p, 10_000, 10_000, 8, 6, 40_000, True), "400 MB Adam7"),
    ("strip-65535x1525.png", lambda p: png(p, 65_535, 1_525, 8, 0, 65_535), "largest strip, accepted"),
    ("text-999-ztxt.png", lambda p: text_bomb(p, 999), "7.4 GB / 46 s before, accepted"),
    # Issue 38: the HEIF box walk's reproducers, with the walk deleted (target < 1 s, < 100 MB).
    # Named by their `ftyp` brand, which the error names: the derived-image ones are AVIF.
    ("avif-self-referencing-iden.avif", heif_seed("self-referencing-iden.avif"), "stack overflow in 1.15"),
    ("avif-mutual-grids.avif", heif_seed("mutual-grids.avif"), "reference cycle"),
    ("avif-second-iref.avif", heif_seed("second-iref-hiding-2000-tiles.avif"), "second iref box"),
    ("avif-box-past-its-parent.avif", heif_seed("box-past-its-parent.avif"), "iref past its parent"),
    ("avif-32-extents-over-16-MiB.avif", lambda p: heif_extents_over(p, 32, 16 << 20), "1.1 GB before"),
    ("heif-zero-width-extents-2.heic", heif_seed("zero-width-extents-2-items.heic"), "iloc v0, 0-byte fields"),
    ("heif-zero-width-extents-1000.heic", heif_seed("zero-width-extents-1000-items.heic"), "4.2 GB under the walk"),
    ("avif-stream-over-ispe.avif", heif_seed("avif-stream-over-ispe.avif"), "96x60 AV1 under 16x16"),
    ("heic-stream-over-ispe.heic", heif_seed("heic-stream-over-ispe.heic"), "96x64 HEVC under 16x16"),
    ("hevc-8000-under-64-infe-v4.heic", heif_seed("hevc-8000-under-64-infe-v4.heic"), "SPS 8000x8000"),
    ("hevc-30000-under-64-infe-v4.heic", heif_seed("hevc-30000-under-64-infe-v4.heic"), "OOB write in 1.15"),
    ("hevc-8000-under-64-infe-v3.heic", heif_seed("hevc-8000-under-64-infe-v3.heic"), "SPS 8000x8000, v3"),
    ("hevc-30000-under-64-infe-v3.heic", heif_seed("hevc-30000-under-64-infe-v3.heic"), "SPS 30000x30000, v3"),
]


def run(binary, path, timeout):
    command = ["/usr/bin/time", "-f", "TIME %e %M", binary, path, "1024", "0.8", "1", os.devnull]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "rss_mib": None, "result": f"still running after {timeout} s"}
    line = [l for l in done.stderr.splitlines() if l.startswith("TIME ")]
    seconds, rss_kib = (float(line[-1].split()[1]), int(line[-1].split()[2])) if line else (None, None)
    output = done.stdout.strip().splitlines()
    try:
        result = json.loads(output[-1]) if output else {}
        # An accepted file is downscaled three times (two warm-ups): report one run's median.
        result = result.get("error") or (
            f"accepted: {result['width']}x{result['height']}, {result['median_ms']:.0f} ms a run")
    except (ValueError, KeyError):
        # A build that lets the error escape (before hostile.py existed) traps at top level.
        fatal = [l for l in done.stderr.splitlines() if "Error raised at top level" in l]
        result = ("error: " + fatal[0].split("Error raised at top level:")[-1].strip()[:140]
                  if fatal else f"exit {done.returncode}")
    return {"seconds": seconds, "rss_mib": rss_kib / 1024 if rss_kib else None, "result": result}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, work = sys.argv[1], sys.argv[2]
    reference = sys.argv[sys.argv.index("--reference") + 1] if "--reference" in sys.argv else None
    os.makedirs(work, exist_ok=True)
    print(f"{'file':36} {'bytes':>9} {'time s':>7} {'peak RSS MiB':>12}  result")
    for name, build, note in FILES:
        path = os.path.join(work, name)
        if not os.path.exists(path):
            build(path)
        size = os.path.getsize(path)
        ours = run(binary, path, 120)
        fmt = lambda v, spec: "-" if v is None else format(v, spec)
        print(f"{name:36} {size:>9} {fmt(ours['seconds'], '7.2f')} {fmt(ours['rss_mib'], '12.1f')}  "
              f"{ours['result']}  ({note})")
        if reference:
            old = run(reference, path, 120)
            ratio = (f"{ours['rss_mib'] / old['rss_mib']:.3f}"
                     if ours["rss_mib"] and old["rss_mib"] else "-")
            print(f"{'  reference build':36} {'':>9} {fmt(old['seconds'], '7.2f')} "
                  f"{fmt(old['rss_mib'], '12.1f')}  {old['result']}  (RSS ours/reference {ratio})")


if __name__ == "__main__":
    main()
