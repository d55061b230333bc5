#!/usr/bin/env python3
"""Renders a photo of printed text, for DexTextRecognition's tests and benchmark.

Usage: text-photo.py KIND OUT.png [--size PX] [--rotate DEG] [--canvas WxH] [--seed N]

KIND is receipt, sign, plant-tag, card-name or page. The picture is the printed object (its
text at about SIZE pixels high) lying on a mottled table, lit unevenly, turned by DEG degrees
(counter-clockwise), with a little sensor noise and blur: what a phone photo of it looks like,
made here so that the tests need no photo files and know the exact text. It prints one JSON
object: {"text": the printed text, one line per printed line, "width": ..., "height": ...}.

Needs Pillow (Debian python3-pil, HPND licence) and the DejaVu fonts (Debian fonts-dejavu-core,
and fonts-dejavu-extra for DejaVu Serif Italic; Bitstream Vera / public-domain licence, see
/usr/share/doc/fonts-dejavu-core/copyright).
"""

import argparse
import json
import random
import sys

from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = "/usr/share/fonts/truetype/dejavu/"

# Each object: its lines (text, font file, scale of the base size), paper and ink colours.
SCENES = {
    "receipt": {
        "lines": [
            ("CORNER GROCERY", "DejaVuSansMono-Bold.ttf", 1.2),
            ("12 Harbour Street", "DejaVuSansMono.ttf", 1.0),
            ("Milk 2.49", "DejaVuSansMono.ttf", 1.0),
            ("Bread 3.10", "DejaVuSansMono.ttf", 1.0),
            ("Apples 4.25", "DejaVuSansMono.ttf", 1.0),
            ("TOTAL 9.84", "DejaVuSansMono-Bold.ttf", 1.0),
            ("Thank you for shopping", "DejaVuSansMono.ttf", 1.0),
        ],
        "paper": (246, 244, 238),
        "ink": (40, 40, 48),
    },
    "sign": {
        "lines": [
            ("PLATFORM 4", "DejaVuSans-Bold.ttf", 1.4),
            ("Trains to Riverside", "DejaVuSans.ttf", 1.0),
            ("Way out", "DejaVuSans.ttf", 1.0),
        ],
        "paper": (22, 84, 60),
        "ink": (250, 250, 245),
    },
    "plant-tag": {
        "lines": [
            ("Lavandula angustifolia", "DejaVuSerif-Italic.ttf", 1.0),
            ("English Lavender", "DejaVuSerif-Bold.ttf", 1.2),
            ("Full sun, well drained soil", "DejaVuSerif.ttf", 0.9),
        ],
        "paper": (236, 240, 222),
        "ink": (34, 60, 30),
    },
    "card-name": {
        "lines": [
            ("Ember Fox", "DejaVuSans-Bold.ttf", 1.3),
            ("Fire type creature", "DejaVuSans.ttf", 0.8),
        ],
        "paper": (250, 226, 150),
        "ink": (30, 24, 20),
    },
}

PAGE_WORDS = (
    "the quick brown fox jumps over a lazy dog while seven bright lanterns glow above "
    "the quiet harbour and fishermen mend their nets before the morning tide returns"
).split()


def page_scene(size, rng):
    """A page of prose, for the benchmark's 12 MP photo."""
    lines = []
    for _ in range(28):
        words = [rng.choice(PAGE_WORDS) for _ in range(9)]
        lines.append((" ".join(words), "DejaVuSerif.ttf", 1.0))
    return {"lines": lines, "paper": (248, 246, 240), "ink": (25, 25, 30)}


def render_object(scene, size):
    """The printed object alone: paper with its lines of text and a margin."""
    fonts = [ImageFont.truetype(FONTS + f, max(6, round(size * s))) for _, f, s in scene["lines"]]
    boxes = [font.getbbox(text) for (text, _, _), font in zip(scene["lines"], fonts)]
    gap = round(size * 0.6)
    margin = round(size * 1.2)
    width = max(b[2] for b in boxes) + 2 * margin
    height = sum(b[3] for b in boxes) + gap * (len(boxes) - 1) + 2 * margin
    paper = Image.new("RGB", (width, height), scene["paper"])
    draw = ImageDraw.Draw(paper)
    y = margin
    for (text, _, _), font, box in zip(scene["lines"], fonts, boxes):
        draw.text((margin, y), text, font=font, fill=scene["ink"])
        y += box[3] + gap
    return paper


def table(width, height, rng):
    """A mottled wooden-ish table top, lit from one side."""
    small = Image.new("RGB", (max(2, width // 32), max(2, height // 32)))
    px = small.load()
    for y in range(small.height):
        for x in range(small.width):
            light = 0.75 + 0.25 * x / max(1, small.width - 1)
            base = rng.randint(-12, 12)
            px[x, y] = tuple(int(max(0, min(255, (c + base) * light))) for c in (150, 118, 88))
    return small.resize((width, height), Image.BICUBIC)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=sorted(list(SCENES) + ["page"]))
    parser.add_argument("out")
    parser.add_argument("--size", type=int, default=24, help="text height in pixels")
    parser.add_argument("--rotate", type=float, default=0.0, help="degrees, counter-clockwise")
    parser.add_argument("--canvas", default=None, help="WxH of the photo (default: fits)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    scene = page_scene(args.size, rng) if args.kind == "page" else SCENES[args.kind]
    paper = render_object(scene, args.size)
    turned = paper.rotate(args.rotate, resample=Image.BICUBIC, expand=True, fillcolor=(0, 0, 0))
    mask = Image.new("L", paper.size, 255).rotate(args.rotate, expand=True, fillcolor=0)
    if args.canvas:
        width, height = (int(v) for v in args.canvas.lower().split("x"))
    else:
        pad = max(16, args.size * 2)
        width, height = turned.width + 2 * pad, turned.height + 2 * pad
    if turned.width > width or turned.height > height:
        sys.exit(f"the object ({turned.width}x{turned.height}) does not fit in {width}x{height}")
    photo = table(width, height, rng)
    photo.paste(turned, ((width - turned.width) // 2, (height - turned.height) // 2), mask)
    # Uneven light across the object, a slight defocus and sensor noise.
    shade = Image.linear_gradient("L").rotate(90).resize((width, height))
    photo = Image.composite(photo, Image.eval(photo, lambda v: int(v * 0.88)), shade)
    photo = photo.filter(ImageFilter.GaussianBlur(0.6))
    noise = Image.effect_noise((width, height), 10).convert("RGB")
    photo = Image.blend(photo, noise, 0.04)
    photo.save(args.out)
    text = "\n".join(line for line, _, _ in scene["lines"])
    print(json.dumps({"text": text, "width": width, "height": height}))


if __name__ == "__main__":
    main()
