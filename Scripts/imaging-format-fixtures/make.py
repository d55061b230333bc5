#!/usr/bin/env python3
"""Makes the HEIF / AVIF / WebP test fixtures in Tests/DexImagingTests/Resources/formats.

    python3 Scripts/imaging-format-fixtures/make.py [work-dir]
    python3 Scripts/imaging-format-fixtures/make.py --overlays   # only the overlay files
    python3 Scripts/imaging-format-fixtures/make.py --orientations   # only heic-orientation-*.heic
    python3 Scripts/imaging-format-fixtures/make.py --exif   # only heic-exif-date.heic, avif-exif-date.avif

Source photo: "Evening Glow" by Ian Hex, 2560x1600.jpg from the Debian package
plasma-workspace-wallpapers (4:5.27.5-2), licence LGPL-3 (its metadata.json); fetched with
`apt-get download` into the work directory (nothing is installed). Derived files keep that licence.

Needs Debian's encoders: heif-enc (libheif-examples), avifenc (libavif-bin), cwebp / img2webp /
webpmux (webp), vips (libvips-tools). No Python package beyond the standard library. The HEIC
files with irot / imir (heif-enc cannot write them) are written box by box around heic-8bit.heic's
coded image, as the grids and overlays are.
"""
import glob
import os
import shutil
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "DexImagingTests", "Resources", "formats")
WORK = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "/tmp/dex-format-fixtures"
W, H = 96, 60


def run(*argv, **kw):
    subprocess.run([str(a) for a in argv], check=True, stdout=subprocess.DEVNULL, **kw)


def png(path, width, height, rows, channels, depth=8):
    """A minimal PNG writer (colour type 2 or 6, 8 or 16 bits)."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    colour = {3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(data)


def tiff_orientation(value):
    """A big-endian TIFF block whose IFD0 holds only Orientation = value (EXIF payload)."""
    return b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, value, 0) + struct.pack(">I", 0)


def tiff_dates(orientation, original, datetime):
    """A big-endian TIFF block as cameras lay it out: IFD0 (Orientation, DateTime, the Exif IFD
    pointer), the Exif IFD (DateTimeOriginal), then the two strings."""
    entry = lambda tag, kind, count, value: struct.pack(">HHI", tag, kind, count) + value
    exif_ifd = 8 + 2 + 3 * 12 + 4
    strings = exif_ifd + 2 + 12 + 4
    ifd0 = (entry(0x0112, 3, 1, struct.pack(">HH", orientation, 0))
            + entry(0x0132, 2, 20, struct.pack(">I", strings))
            + entry(0x8769, 4, 1, struct.pack(">I", exif_ifd)))
    exif = struct.pack(">H", 1) + entry(0x9003, 2, 20, struct.pack(">I", strings + 20)) + struct.pack(">I", 0)
    return (b"MM\x00\x2a" + struct.pack(">IH", 8, 3) + ifd0 + struct.pack(">I", 0) + exif
            + datetime.encode() + b"\x00" + original.encode() + b"\x00")


def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body


def full_box(kind, version, body, flags=0):
    return box(kind, struct.pack(">I", version << 24 | flags) + body)


def child_boxes(data, start, end):
    while start + 8 <= end:
        size, = struct.unpack(">I", data[start:start + 4])
        yield data[start + 4:start + 8], start, start + size
        start += size


def hevc_tile(heic):
    """The hvcC property box, the coded bytes and the coded size of item 1 (heif-enc's only coded image) of a
    small HEIC, read from its iprp/ipco and iloc (version 1, 4-byte offsets and lengths)."""
    hvcc = data = None
    coded = (0, 0)
    for kind, start, end in child_boxes(heic, 0, len(heic)):
        if kind != b"meta":
            continue
        for kind2, s2, e2 in child_boxes(heic, start + 12, end):
            if kind2 == b"iprp":
                for kind3, s3, e3 in child_boxes(heic, s2 + 8, e2):
                    for kind4, s4, e4 in child_boxes(heic, s3 + 8, e3) if kind3 == b"ipco" else []:
                        if kind4 == b"hvcC":
                            hvcc = heic[s4:e4]
                        if kind4 == b"ispe":  # the grid's (96 x 60) and the coded tile's (96 x 64)
                            size = struct.unpack(">II", heic[s4 + 12:s4 + 20])
                            coded = max(coded, size, key=lambda wh: wh[0] * wh[1])
            if kind2 == b"iloc":
                body = heic[s2 + 12:e2]
                assert body[0] == 0x44 and body[1] == 0x40, body[:2].hex()
                count, = struct.unpack(">H", body[2:4])
                pos = 4
                for _ in range(count):
                    item, method, _ref, base, extents = struct.unpack(">HHHIH", body[pos:pos + 12])
                    pos += 12
                    offset, length = struct.unpack(">II", body[pos:pos + 8])
                    pos += 8 * extents
                    if item == 1 and method == 0:
                        data = heic[base + offset:base + offset + length]
    assert hvcc and data
    return hvcc, data, coded


def heif_file(iloc, iinf, iref, ipco, ipma, idat):
    """A HEIC whose primary item is item 1, with everything in `meta` (data in idat)."""
    meta = full_box(b"meta", 0, full_box(b"hdlr", 0, b"\x00" * 4 + b"pict" + b"\x00" * 12 + b"\x00")
                    + full_box(b"pitm", 0, struct.pack(">H", 1)) + iloc + iinf + iref
                    + box(b"iprp", ipco + ipma) + idat)
    ftyp = box(b"ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heic")
    return ftyp + meta + box(b"mdat", b"")


def heif_grid(tiles, references, columns, rows, tile_w, tile_h, hvcc=b"", tile=b"", output=None, transforms=()):
    """A HEIF whose primary item is a grid of `columns` x `rows` tiles of tile_w x tile_h pixels,
    declaring `tiles` hvc1 items and `references` dimg references (item ids cycle through the
    tiles). Every tile item points at the same coded bytes (`tile`, stored in idat) and the same
    hvcC property; without them the tiles hold no data, so a decoder that gets that far fails.
    `output` (width, height) crops the grid's canvas at its right and bottom (default: all of
    it); `transforms` are irot / imir boxes applied to the grid item, in that order, after its
    ispe, which holds the canvas's size before them (ISO/IEC 23008-12: ispe is the size before
    any transformative property)."""
    out_w, out_h = output or (columns * tile_w, rows * tile_h)
    ids = list(range(2, 2 + tiles))
    infe = [full_box(b"infe", 2, struct.pack(">HH", 1, 0) + b"grid" + b"\x00")]
    infe += [full_box(b"infe", 2, struct.pack(">HH", i, 0) + b"hvc1" + b"\x00", flags=1) for i in ids]
    iinf = full_box(b"iinf", 1, struct.pack(">I", len(infe)) + b"".join(infe))
    refs = [ids[k % len(ids)] for k in range(references)]
    dimg = box(b"dimg", struct.pack(">IH", 1, len(refs)) + b"".join(struct.pack(">I", r) for r in refs))
    iref = full_box(b"iref", 1, dimg)
    grid_data = struct.pack(">BBBBII", 0, 1, rows - 1, columns - 1, out_w, out_h)
    idat = box(b"idat", grid_data + tile)
    # iloc v1: offset_size 4, length_size 4, base_offset_size 0, index_size 0; all data in idat.
    entries = [struct.pack(">HHHHII", 1, 1, 0, 1, 0, len(grid_data))]
    entries += [struct.pack(">HHHHII", i, 1, 0, 1, len(grid_data), len(tile)) for i in ids]
    iloc = full_box(b"iloc", 1, struct.pack(">BBH", 0x44, 0x00, len(entries)) + b"".join(entries))
    ispe_grid = full_box(b"ispe", 0, struct.pack(">II", out_w, out_h))
    ispe_tile = full_box(b"ispe", 0, struct.pack(">II", tile_w, tile_h))
    ipco = box(b"ipco", ispe_grid + ispe_tile + hvcc + b"".join(transforms))
    tile_props = b"\x02\x83" if hvcc else b"\x01\x02"  # ispe (+ essential hvcC)
    # The grid: its ispe, then its transforms (essential: a reader that cannot apply them must
    # not show the image), which follow the hvcC in ipco.
    grid_props = b"\x01" + bytes(0x80 | (4 + k) for k in range(len(transforms)))
    assoc = [struct.pack(">HB", 1, len(grid_props)) + grid_props]
    assoc += [struct.pack(">HB", i, len(tile_props)) + tile_props for i in ids]
    ipma = full_box(b"ipma", 0, struct.pack(">I", len(assoc)) + b"".join(assoc))
    return heif_file(iloc, iinf, iref, ipco, ipma, idat)


def heif_overlay(references, canvas_w, canvas_h, tile_w, tile_h, hvcc, tile):
    """A HEIF whose primary item is an overlay (iovl) of a canvas_w x canvas_h canvas drawing
    `references` inputs, all the same hvc1 tile, at the canvas's top-left corner."""
    infe = [full_box(b"infe", 2, struct.pack(">HH", 1, 0) + b"iovl" + b"\x00")]
    infe += [full_box(b"infe", 2, struct.pack(">HH", 2, 0) + b"hvc1" + b"\x00", flags=1)]
    iinf = full_box(b"iinf", 0, struct.pack(">H", len(infe)) + b"".join(infe))
    dimg = box(b"dimg", struct.pack(">HH", 1, references) + struct.pack(">H", 2) * references)
    iref = full_box(b"iref", 0, dimg)
    # version 0, flags 0 (16-bit fields): fill value (RGBA, 16 bits each), output size, offsets.
    overlay = struct.pack(">BB4HHH", 0, 0, 0, 0, 0, 0xFFFF, canvas_w, canvas_h)
    overlay += struct.pack(">hh", 0, 0) * references
    idat = box(b"idat", overlay + tile)
    entries = [struct.pack(">HHHHII", 1, 1, 0, 1, 0, len(overlay)),
               struct.pack(">HHHHII", 2, 1, 0, 1, len(overlay), len(tile))]
    iloc = full_box(b"iloc", 1, struct.pack(">BBH", 0x44, 0x00, len(entries)) + b"".join(entries))
    ispe_canvas = full_box(b"ispe", 0, struct.pack(">II", canvas_w, canvas_h))
    ispe_tile = full_box(b"ispe", 0, struct.pack(">II", tile_w, tile_h))
    ipco = box(b"ipco", ispe_canvas + ispe_tile + hvcc)
    assoc = [struct.pack(">HB", 1, 1) + b"\x01", struct.pack(">HB", 2, 2) + b"\x02\x83"]
    ipma = full_box(b"ipma", 0, struct.pack(">I", len(assoc)) + b"".join(assoc))
    return heif_file(iloc, iinf, iref, ipco, ipma, idat)


# EXIF orientation -> the irot / imir boxes (in that order) that display the coded image so;
# irot's angle is anti-clockwise in units of 90 degrees; imir's axis bit as libheif 1.15's encoder
# wrote it, which libheif 1.19 and 1.23 decode as the tests expect (1 flips left-right, 0
# top-bottom).
ORIENTATION_TRANSFORMS = {
    1: (), 2: (("imir", 1),), 3: (("irot", 2),), 4: (("imir", 0),),
    5: (("irot", 3), ("imir", 1)), 6: (("irot", 3),), 7: (("irot", 3), ("imir", 0)), 8: (("irot", 1),),
}


def write_orientations():
    """heic-orientation-1...8.heic: heic-8bit.heic's coded tile (W x H coded as 96 x 64) in a 1 x 1
    grid cropped to W x H, whose irot / imir display it in EXIF orientation N (`make.py
    --orientations` remakes only these, without the encoders). libheif's own encoder is not used:
    1.15's wrote the ispe of orientations 5...8 rotated (60 x 96), which libheif 1.23 refuses, and
    1.19.7's clap + irot output decoded at 22-25 dB in libheif 1.19.7 for orientations 6...8."""
    hvcc, tile, (tw, th) = hevc_tile(open(os.path.join(OUT, "heic-8bit.heic"), "rb").read())
    for n, steps in ORIENTATION_TRANSFORMS.items():
        transforms = [box(kind.encode(), bytes([value])) for kind, value in steps]
        data = heif_grid(1, 1, 1, 1, tw, th, hvcc, tile, output=(W, H), transforms=transforms)
        with open(os.path.join(OUT, f"heic-orientation-{n}.heic"), "wb") as f:
            f.write(data)


def write_overlays():
    """The overlay files, from heic-8bit.heic's coded tile (`make.py --overlays` remakes only
    these, without the encoders)."""
    hvcc, tile, (tw, th) = hevc_tile(open(os.path.join(OUT, "heic-8bit.heic"), "rb").read())
    overlays = {
        "heif-overlay-2.heic": heif_overlay(2, tw, th, tw, th, hvcc, tile),
        "heif-overlay-1024-inputs.heic": heif_overlay(1024, 64, 64, tw, th, hvcc, tile),
    }
    for name, data in overlays.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


def write_exif_dates():
    """heic-exif-date.heic and avif-exif-date.avif: source.png with an EXIF block holding
    DateTimeOriginal 2019:07:14 09:26:53 and a different DateTime 2023:01:02 03:04:05, written by
    the encoders into the primary image's `Exif` item. heif-enc reads it from a PNG eXIf chunk
    (orientation set to 1; the item starts with TIFF header offset 0); avifenc is given it with
    an "Exif\\0\\0" prefix and orientation 6, which it turns into an `irot` and keeps (offset 6),
    so the AVIF shows 60 x 96 and must not be rotated again for its EXIF."""
    os.makedirs(WORK, exist_ok=True)
    o = lambda name: os.path.join(OUT, name)
    source = open(o("source.png"), "rb").read()
    assert source[12:16] == b"IHDR"
    tiff = tiff_dates(1, "2019:07:14 09:26:53", "2023:01:02 03:04:05")
    exif_chunk = struct.pack(">I", len(tiff)) + b"eXIf" + tiff + struct.pack(">I", zlib.crc32(b"eXIf" + tiff))
    dated = os.path.join(WORK, "source-exif.png")
    with open(dated, "wb") as f:
        f.write(source[:33] + exif_chunk + source[33:])  # right after IHDR
    run("heif-enc", "-q", 90, "-o", o("heic-exif-date.heic"), dated)
    payload = os.path.join(WORK, "exif-date-6.exif")
    with open(payload, "wb") as f:
        f.write(b"Exif\x00\x00" + tiff_dates(6, "2019:07:14 09:26:53", "2023:01:02 03:04:05"))
    run("avifenc", "-s", 6, "--min", 0, "--max", 10, "--exif", payload, o("source.png"), o("avif-exif-date.avif"))


def main():
    if sys.argv[1:] == ["--exif"]:
        write_exif_dates()
        return
    if sys.argv[1:] == ["--overlays"]:
        write_overlays()
        return
    if sys.argv[1:] == ["--orientations"]:
        write_orientations()
        return
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    debs = glob.glob(os.path.join(WORK, "plasma-workspace-wallpapers_*.deb"))
    if not debs:
        run("apt-get", "download", "plasma-workspace-wallpapers", cwd=WORK)
        debs = glob.glob(os.path.join(WORK, "plasma-workspace-wallpapers_*.deb"))
    run("dpkg", "-x", debs[0], os.path.join(WORK, "x"))
    photo = glob.glob(os.path.join(WORK, "x", "**", "EveningGlow", "**", "2560x1600.jpg"), recursive=True)[0]
    other_photo = glob.glob(os.path.join(WORK, "x", "**", "FallenLeaf", "**", "2560x1600.jpg"), recursive=True)[0]

    def rgb_of(jpeg, name):
        v = os.path.join(WORK, name + ".v")
        raw = os.path.join(WORK, name + ".raw")
        run("vips", "thumbnail", jpeg, v, W, "--height", H, "--size", "force")
        run("vips", "rawsave", v, raw)
        data = open(raw, "rb").read()
        assert len(data) == W * H * 3, len(data)
        return [data[y * W * 3:(y + 1) * W * 3] for y in range(H)]

    rows = rgb_of(photo, "source")
    other = rgb_of(other_photo, "other")
    source = os.path.join(OUT, "source.png")
    png(source, W, H, rows, 3)
    png(os.path.join(WORK, "other.png"), W, H, other, 3)
    # 16-bit copy (v * 257) for the 10- and 12-bit encodes.
    rows16 = [b"".join(struct.pack(">H", v * 257) for v in row) for row in rows]
    png(os.path.join(WORK, "source16.png"), W, H, rows16, 3, depth=16)
    # Alpha: opaque left third, a falling ramp, a fully transparent top-right block.
    alpha_rows = []
    for y in range(H):
        out = bytearray()
        for x in range(W):
            a = 255 if x < 32 else max(0, 255 - (x - 32) * 4)
            if x >= 80 and y < 16:
                a = 0
            out += rows[y][x * 3:x * 3 + 3] + bytes([a])
        alpha_rows.append(out)
    source_alpha = os.path.join(OUT, "source-alpha.png")
    png(source_alpha, W, H, alpha_rows, 4)

    o = lambda name: os.path.join(OUT, name)
    run("heif-enc", "-q", 90, "-o", o("heic-8bit.heic"), source)
    run("heif-enc", "-q", 90, "-b", 10, "-o", o("heic-10bit.heic"), os.path.join(WORK, "source16.png"))
    run("heif-enc", "-q", 90, "-o", o("heic-alpha.heic"), source_alpha)
    run("heif-enc", "-q", 90, "-o", o("heic-collection.heic"), source, os.path.join(WORK, "other.png"))
    run("avifenc", "-s", 6, "--min", 0, "--max", 10, source, o("avif-8bit.avif"))
    run("avifenc", "-s", 6, "-d", 10, "--min", 0, "--max", 10, os.path.join(WORK, "source16.png"), o("avif-10bit.avif"))
    run("avifenc", "-s", 6, "-d", 12, "--min", 0, "--max", 10, os.path.join(WORK, "source16.png"), o("avif-12bit.avif"))
    run("avifenc", "-s", 6, "--min", 0, "--max", 10, source_alpha, o("avif-alpha.avif"))
    run("avifenc", "-s", 6, "--min", 0, "--max", 10, "--irot", 1, source, o("avif-irot-1.avif"))
    run("cwebp", "-quiet", "-q", 90, source, "-o", o("webp-lossy.webp"))
    run("cwebp", "-quiet", "-q", 90, "-alpha_q", 100, source_alpha, "-o", o("webp-lossy-alpha.webp"))
    run("cwebp", "-quiet", "-lossless", "-exact", source_alpha, "-o", o("webp-lossless-alpha.webp"))
    run("img2webp", "-lossless", "-d", 100, source, os.path.join(WORK, "other.png"), "-o", o("webp-animated.webp"))
    exif = os.path.join(WORK, "exif-6.tiff")
    with open(exif, "wb") as f:
        f.write(tiff_orientation(6))
    run("webpmux", "-set", "exif", exif, o("webp-lossy.webp"), "-o", o("webp-exif-6.webp"))
    # Hostile: thousands of tiles (and thousands of references to one tile); a small grid whose
    # tiles hold no data.
    # Grid tiles are placed at their coded size (heif-enc codes 96 x 60 as 96 x 64).
    hvcc, tile, (tw, th) = hevc_tile(open(o("heic-8bit.heic"), "rb").read())
    grids = {
        "heif-grid-2x2.heic": heif_grid(4, 4, 2, 2, tw, th, hvcc, tile),
        "heif-grid-2048-tiles.heic": heif_grid(2048, 2048, 64, 32, tw, th, hvcc, tile),
        "heif-grid-repeated-tile.heic": heif_grid(1, 10000, 100, 100, tw, th, hvcc, tile),
        "heif-grid-empty-tiles.heic": heif_grid(4, 4, 2, 2, 64, 64),
    }
    for name, data in grids.items():
        with open(o(name), "wb") as f:
            f.write(data)
    write_overlays()
    write_orientations()
    write_exif_dates()
    for name in sorted(os.listdir(OUT)):
        print(f"{name}: {os.path.getsize(os.path.join(OUT, name))} bytes")


if __name__ == "__main__":
    main()
