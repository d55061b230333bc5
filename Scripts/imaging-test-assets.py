#!/usr/bin/env python3
"""Regenerates Tests/DexImagingTests/Resources (DexImaging test assets).

Source photo: "Fallen Leaf" by Martin Klapetek, LGPL-3.0 (the wallpaper's metadata.json), file
FallenLeaf/contents/images/2560x1440.jpg of the Debian package plasma-workspace-wallpapers
(4:5.27.5-2; fetched with `apt-get download` + `dpkg -x`, nothing installed).
Needs Pillow (`pip install pillow`). Output is deterministic for a given Pillow/libjpeg.

Every variant is made with Pillow or by hand-written bytes, never with DexImaging itself, so the
tests compare our decoder against independent references.
"""
import io
import os
import struct
import subprocess
import sys
import tempfile
import zlib

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "DexImagingTests", "Resources")
SOURCE_PACKAGE = "plasma-workspace-wallpapers"
SOURCE_PATH = ("usr", "share", "wallpapers", "FallenLeaf", "contents", "images", "2560x1440.jpg")


def fetch_source():
    cache = os.path.join(tempfile.gettempdir(), "dex-imaging-assets")
    path = os.path.join(cache, "x", *SOURCE_PATH)
    if os.path.exists(path):
        return path
    os.makedirs(cache, exist_ok=True)
    subprocess.run(["apt-get", "download", SOURCE_PACKAGE], cwd=cache, check=True)
    deb = [f for f in os.listdir(cache) if f.startswith(SOURCE_PACKAGE + "_") and f.endswith(".deb")][0]
    subprocess.run(["dpkg", "-x", deb, "x"], cwd=cache, check=True)
    return path


def exif_app1(orientation, big_endian):
    """A minimal EXIF APP1 segment whose IFD0 holds only the orientation tag."""
    e = ">" if big_endian else "<"
    tiff = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
    tiff += struct.pack(e + "H", 1)  # one entry
    tiff += struct.pack(e + "HHI", 0x0112, 3, 1) + struct.pack(e + "HH", orientation, 0)
    tiff += struct.pack(e + "I", 0)  # no next IFD
    body = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def insert_after_soi(jpeg, segment):
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + segment + jpeg[2:]


def jpeg_bytes(image, **kwargs):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", **kwargs)
    return buffer.getvalue()


def ycck_jpeg(rgb):
    """An Adobe YCCK JPEG (APP14 transform 2) whose colours are `rgb` with K = 0 ink.

    Pillow only writes CMYK (transform 0, samples stored inverted). YCCK stores the YCbCr of
    (255-C, 255-M, 255-Y) plus K; with Adobe's inversion that means the stored first three
    channels are YCbCr(255-R, 255-G, 255-B) and K is stored as 255. We hand Pillow the
    pre-inverted samples, then flip the APP14 transform byte from 0 to 2.
    """
    inverted = Image.eval(rgb, lambda v: 255 - v).convert("YCbCr")
    y, cb, cr = inverted.split()
    k = Image.new("L", rgb.size, 255)
    stored = Image.merge("CMYK", [Image.eval(ch, lambda v: 255 - v) for ch in (y, cb, cr, k)])
    data = bytearray(jpeg_bytes(stored, quality=95))
    at = data.find(b"Adobe") - 4
    assert at > 0 and data[at + 4:at + 9] == b"Adobe"
    assert data[at + 15] == 0  # transform: 0 = CMYK
    data[at + 15] = 2  # 2 = YCCK
    return bytes(data)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


# Stored-from-upright transforms: applying EXIF orientation n to stored gives upright.
STORE = {
    1: lambda im: im,
    2: lambda im: im.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
    3: lambda im: im.transpose(Image.Transpose.ROTATE_180),
    4: lambda im: im.transpose(Image.Transpose.FLIP_TOP_BOTTOM),
    5: lambda im: im.transpose(Image.Transpose.TRANSPOSE),
    6: lambda im: im.transpose(Image.Transpose.ROTATE_90),  # CCW 90 stored, CW 90 to show
    7: lambda im: im.transpose(Image.Transpose.TRANSVERSE),
    8: lambda im: im.transpose(Image.Transpose.ROTATE_270),
}


# --- A tiny, independent PNG writer (all colour types, bit depths, Adam7) -------------------

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pack_row(samples, depth):
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out, acc, bits = bytearray(), 0, 0
    for s in samples:
        acc = (acc << depth) | s
        bits += depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_bytes(width, height, rows, color_type, depth, palette=None, trns=None, interlace=False):
    """rows: list of lists of per-pixel sample tuples."""
    raw = bytearray()
    if not interlace:
        passes = [(0, 0, 1, 1)]
    else:
        passes = ADAM7
    for x0, y0, dx, dy in passes:
        for y in range(y0, height, dy):
            xs = range(x0, width, dx)
            if len(xs) == 0:
                continue
            samples = [s for x in xs for s in rows[y][x]]
            raw += b"\x00" + pack_row(samples, depth)
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 1 if interlace else 0)
    data = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
    if palette is not None:
        data += png_chunk(b"PLTE", bytes(c for rgb in palette for c in rgb))
    if trns is not None:
        data += png_chunk(b"tRNS", trns)
    data += png_chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + png_chunk(b"IEND", b"")
    return data


def over_white(rgb, alpha):
    return tuple((c * alpha + 255 * (255 - alpha) + 127) // 255 for c in rgb)


def make_png_variants(crop):
    """crop: small RGB image. Writes png-<name>.png and png-<name>-expected.png (RGB8)."""
    w, h = crop.size
    rgb = [[crop.getpixel((x, y)) for x in range(w)] for y in range(h)]
    gray = [[(299 * p[0] + 587 * p[1] + 114 * p[2]) // 1000 for p in row] for row in rgb]
    alpha = [[(x * 255) // (w - 1) if y < h // 2 else 255 - (y * 255) // (h - 1) for x in range(w)]
             for y in range(h)]

    def expected(name, pixels):
        im = Image.new("RGB", (w, h))
        im.putdata([p for row in pixels for p in row])
        buffer = io.BytesIO()
        im.save(buffer, "PNG")
        write(f"png-{name}-expected.png", buffer.getvalue())

    for depth in (1, 2, 4, 8, 16):
        maxv = (1 << depth) - 1
        q = [[(g * maxv + 127) // 255 for g in row] for row in gray]
        rows = [[(v,) for v in row] for row in q]
        write(f"png-gray{depth}.png", png_bytes(w, h, rows, 0, depth))
        if depth == 16:
            exp = [[(((v * 255 + 32767) // 65535),) * 3 for v in row] for row in q]
        else:
            exp = [[((v * 255) // maxv,) * 3 for v in row] for row in q]
        expected(f"gray{depth}", exp)
    # gray + alpha, 8 and 16 bit
    rows = [[(gray[y][x], alpha[y][x]) for x in range(w)] for y in range(h)]
    write("png-graya8.png", png_bytes(w, h, rows, 4, 8))
    expected("graya8", [[over_white((gray[y][x],) * 3, alpha[y][x]) for x in range(w)] for y in range(h)])
    rows = [[(gray[y][x] * 257, alpha[y][x] * 257) for x in range(w)] for y in range(h)]
    write("png-graya16.png", png_bytes(w, h, rows, 4, 16))
    expected("graya16", [[over_white((gray[y][x],) * 3, alpha[y][x]) for x in range(w)] for y in range(h)])
    # RGB 8/16, RGBA 8/16, interlaced RGB and RGBA
    write("png-rgb8.png", png_bytes(w, h, [[p for p in row] for row in rgb], 2, 8))
    expected("rgb8", rgb)
    write("png-rgb16.png", png_bytes(w, h, [[tuple(c * 257 for c in p) for p in row] for row in rgb], 2, 16))
    expected("rgb16", rgb)
    write("png-rgb8-interlaced.png", png_bytes(w, h, rgb, 2, 8, interlace=True))
    expected("rgb8-interlaced", rgb)
    rgba = [[rgb[y][x] + (alpha[y][x],) for x in range(w)] for y in range(h)]
    comp = [[over_white(rgb[y][x], alpha[y][x]) for x in range(w)] for y in range(h)]
    write("png-rgba8.png", png_bytes(w, h, rgba, 6, 8))
    expected("rgba8", comp)
    write("png-rgba16.png", png_bytes(w, h, [[tuple(c * 257 for c in p) for p in row] for row in rgba], 6, 16))
    expected("rgba16", comp)
    write("png-rgba8-interlaced.png", png_bytes(w, h, rgba, 6, 8, interlace=True))
    expected("rgba8-interlaced", comp)
    # Palette 1/2/4/8 bit with tRNS (index 0 fully transparent, index 1 half)
    for depth in (1, 2, 4, 8):
        n = 1 << depth
        quant = crop.quantize(colors=n, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        pal = quant.getpalette()[: 3 * n]
        pal += [0] * (3 * n - len(pal))
        palette = [tuple(pal[i * 3:i * 3 + 3]) for i in range(n)]
        idx = [[quant.getpixel((x, y)) for x in range(w)] for y in range(h)]
        trns_alpha = [0, 128] if n > 2 else [0]
        trns = bytes(trns_alpha)
        rows = [[(i,) for i in row] for row in idx]
        interlace = depth == 4
        name = f"palette{depth}" + ("-interlaced" if interlace else "")
        write(f"png-{name}.png", png_bytes(w, h, rows, 3, depth, palette, trns, interlace))
        alpha_of = lambda i: trns_alpha[i] if i < len(trns_alpha) else 255
        expected(name, [[over_white(palette[i], alpha_of(i)) for i in row] for row in idx])
    # Gray 8 with tRNS on one grey value (value of the first pixel)
    key = gray[0][0]
    rows = [[(g,) for g in row] for row in gray]
    write("png-gray8-trns.png", png_bytes(w, h, rows, 0, 8, trns=struct.pack(">H", key)))
    expected("gray8-trns", [[(255, 255, 255) if g == key else (g, g, g) for g in row] for row in gray])


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.endswith((".jpg", ".png")):
            os.remove(os.path.join(OUT, name))
    source = Image.open(fetch_source()).convert("RGB")
    # 1. The main test photo: 960x540 (16:9), baseline 4:2:0 q90.
    photo = source.resize((960, 540), Image.Resampling.LANCZOS)
    write("photo.jpg", jpeg_bytes(photo, quality=90, subsampling=2))
    # Reference downscale of the decoded photo, full resolution Lanczos (Pillow) to 320 wide.
    decoded = Image.open(io.BytesIO(jpeg_bytes(photo, quality=90, subsampling=2))).convert("RGB")
    ref = io.BytesIO()
    decoded.resize((320, 180), Image.Resampling.LANCZOS).save(ref, "PNG")
    write("photo-320-reference.png", ref.getvalue())
    # 2. Encodings of the same photo (smaller, 480x270).
    small = source.resize((480, 270), Image.Resampling.LANCZOS)
    small_ref = io.BytesIO()
    small.save(small_ref, "PNG")
    write("small-reference.png", small_ref.getvalue())
    write("small-progressive.jpg", jpeg_bytes(small, quality=92, progressive=True))
    write("small-444.jpg", jpeg_bytes(small, quality=92, subsampling=0))
    write("small-422.jpg", jpeg_bytes(small, quality=92, subsampling=1))
    write("small-420.jpg", jpeg_bytes(small, quality=92, subsampling=2))
    write("small-gray.jpg", jpeg_bytes(small.convert("L"), quality=92))
    # Pillow writes CMYK with an Adobe APP14 marker and inverted samples (as Photoshop does).
    write("small-cmyk-adobe.jpg", jpeg_bytes(small.convert("CMYK"), quality=92))
    write("small-ycck-adobe.jpg", ycck_jpeg(small))
    # 3. Orientations 1-8 (odd ones big-endian EXIF, even ones little-endian), 240x135 upright.
    upright = source.resize((240, 135), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    upright.save(buffer, "PNG")
    write("orientation-upright.png", buffer.getvalue())
    for n in range(1, 9):
        stored = STORE[n](upright)
        data = insert_after_soi(jpeg_bytes(stored, quality=95, subsampling=0), exif_app1(n, n % 2 == 1))
        write(f"orientation-{n}.jpg", data)
    # 4. PNG colour types and bit depths from a 64x40 crop.
    crop = source.resize((192, 108), Image.Resampling.LANCZOS).crop((40, 30, 104, 70))
    make_png_variants(crop)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes")


if __name__ == "__main__":
    sys.exit(main())
