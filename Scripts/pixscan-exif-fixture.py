#!/usr/bin/env python3
"""Writes PixScan's EXIF-date test photos (Examples/PixScan/Tests/PixScanTests/Resources/).

Usage: Scripts/pixscan-exif-fixture.py [FOLDER]

The pictures are drawn here with Pillow (shapes and a gradient, no source image), so they are
the project's own work under its licence. The JPEGs are baseline JPEGs written by Pillow's own
EXIF writer (libjpeg through Pillow), not by hand; the HEIC is written by libheif's encoder:

- exif-date.jpg: DateTimeOriginal 2019:07:14 09:26:53 in the Exif IFD and a different DateTime
  2023:01:02 03:04:05 in IFD0 (so a reader that takes DateTime instead is caught), orientation 1.
- exif-datetime-only.jpg: only DateTime 2021:02:28 23:59:58 in IFD0.
- exif-date.heic: exif-date.jpg encoded by heif-enc (libheif-examples, x265), which carries the
  JPEG's EXIF over into the primary image's `Exif` item (as an iPhone's HEIC holds it).

Deterministic: the same Pillow and heif-enc versions write the same bytes.
"""

import os
import subprocess
import sys

from PIL import ExifTags, Image, ImageDraw


def picture():
    image = Image.new("RGB", (320, 240))
    draw = ImageDraw.Draw(image)
    for y in range(240):
        draw.line([(0, y), (319, y)], fill=(40 + y // 2, 90, 160 - y // 3))
    draw.ellipse([40, 40, 150, 150], fill=(240, 200, 60))
    draw.rectangle([170, 110, 290, 210], fill=(60, 160, 90))
    draw.polygon([(170, 110), (230, 60), (290, 110)], fill=(200, 70, 60))
    return image


def save(path, original=None, datetime=None):
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = 1
    if datetime:
        exif[ExifTags.Base.DateTime] = datetime
    if original:
        exif.get_ifd(ExifTags.IFD.Exif)[ExifTags.Base.DateTimeOriginal] = original
    picture().save(path, "JPEG", quality=85, exif=exif)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "Examples", "PixScan", "Tests", "PixScanTests", "Resources")
    os.makedirs(folder, exist_ok=True)
    save(os.path.join(folder, "exif-date.jpg"), original="2019:07:14 09:26:53", datetime="2023:01:02 03:04:05")
    save(os.path.join(folder, "exif-datetime-only.jpg"), datetime="2021:02:28 23:59:58")
    heic = os.path.join(folder, "exif-date.heic")
    subprocess.run(["heif-enc", "-q", "90", "-o", heic, os.path.join(folder, "exif-date.jpg")],
                   check=True, stdout=subprocess.DEVNULL)
    print(f"wrote {heic} ({os.path.getsize(heic)} bytes)")


if __name__ == "__main__":
    main()
