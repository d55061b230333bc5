#!/usr/bin/env python3
"""Checks that the Apple sketch in Extending DexKit is the code the compile-only test compiles.

The article (Sources/DexKit/DexKit.docc/ExtendingDexKit.md) shows the ImageIO downscaler, the
Vision and Core ML classifiers and the VNRecognizeTextRequest recognizer in one code block
under `#if canImport(Vision) && canImport(ImageIO)`. Tests/DexKitTests/AppleSketchesTests.swift
compiles the same lines (between `// sketch:begin` and `// sketch:end`) against the SDK on Apple
platforms and against stand-ins elsewhere. This script fails when the two differ, so the
article cannot drift from what is compiled. With --write it copies the test's region into the
article.
"""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
article_path = root / "Sources/DexKit/DexKit.docc/ExtendingDexKit.md"
test_path = root / "Tests/DexKitTests/AppleSketchesTests.swift"
OPEN = "#if canImport(Vision) && canImport(ImageIO)\n"
CLOSE = "#endif\n```"

article = article_path.read_text()
start = article.index(OPEN)
end = article.index(CLOSE, start)
lines = article[start:end].split("\n")[1:]
imports = 0
while lines[imports].strip().startswith("import "):
    imports += 1
if lines[imports] != "":
    sys.exit(f"{article_path}: expected a blank line after the sketch's imports")
body_start = start + len(OPEN) + sum(len(line) + 1 for line in lines[: imports + 1])
article_body = article[body_start:end]

test = test_path.read_text()
begin_marker, end_marker = "  // sketch:begin\n", "  // sketch:end\n"
test_body = test[test.index(begin_marker) + len(begin_marker) : test.index(end_marker)]

if article_body == test_body:
    sys.exit(0)
if "--write" in sys.argv[1:]:
    article_path.write_text(article[:body_start] + test_body + article[end:])
    sys.exit(0)
sys.exit(
    f"error: the Apple sketch in {article_path.relative_to(root)} differs from the code "
    f"{test_path.relative_to(root)} compiles; make them the same (or run "
    "`python3 Scripts/apple-sketches.py --write` to copy the test's into the article)")
