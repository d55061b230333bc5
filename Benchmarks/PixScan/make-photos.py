#!/usr/bin/env python3
"""Makes the benchmark's folder of photos from DexKit's committed sample photos.

Usage: make-photos.py SAMPLES_DIR OUT_DIR [COUNT (200)]

Each photo is one of the six 256 x 256 sample photos (Sources/DexKitTesting/SamplePhotos, see
its SOURCES.md for their CC0 / MIT / Apache-2.0 / CC-BY sources) cropped a little, resized
(Lanczos) to a phone-like 2016 x 1512 (3 MP, 4:3, turned to portrait for every third) and
re-encoded as JPEG at quality 85-92, so that no two files are the same. Needs Pillow (Debian
python3-pil).
"""

import glob
import os
import sys

from PIL import Image

samples = sorted(glob.glob(os.path.join(sys.argv[1], "*.jpg")))
out = sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
os.makedirs(out, exist_ok=True)
for index in range(count):
    source = Image.open(samples[index % len(samples)]).convert("RGB")
    inset = index % 17
    cropped = source.crop((inset, inset // 2, source.width - (16 - inset), source.height - inset // 3))
    size = (1512, 2016) if index % 3 == 2 else (2016, 1512)
    photo = cropped.resize(size, Image.LANCZOS)
    photo.save(os.path.join(out, f"IMG_{index:04d}.jpg"), quality=85 + index % 8)
print(f"{count} photos in {out}")
