#!/usr/bin/env bash
# Style and documentation check: swift-format with the project's .swift-format, warnings fatal.
# The AllPublicDeclarationsHaveDocumentation rule fails on any public symbol without a doc
# comment. Then the repository checks below (environment variables, platform guards, the label
# categories, log labels, the C status codes, the Apple sketch, the privacy manifests, the
# version, the package table).
set -euo pipefail
cd "$(dirname "$0")/.."
swift format lint --strict --recursive Sources Tests Examples Scripts/fuzz
# Every DEX_* environment variable the SDK and the examples read is documented (README.md or a
# DocC page), and every documented one is read by something (Scripts/environment-docs.py says
# precisely what counts).
python3 Scripts/environment-docs.py
# Platform conditions name the platform or a package trait (`os(Linux) && SystemImageCodecs`),
# never `canImport` of one of DexKit's own C targets, which Xcode may satisfy by building the
# target anyway (Platforms.md, "Package traits").
own_c_targets=$(find Sources -mindepth 1 -maxdepth 1 -type d -name 'C*' -printf '%f\n' | paste -sd'|')
if grep -rnE --include='*.swift' --include='*.md' "canImport\((${own_c_targets})\)" \
  Sources Tests Examples Benchmarks Scripts README.md .github 2>/dev/null | grep -v '/\.build'; then
  echo "error: guard on os(...) or a package trait, not canImport of DexKit's own C targets" >&2
  exit 1
fi
# The SDK and its tests compile for the package's oldest Apple platforms (macOS 13, iOS 16): an
# API newer than those (Synchronization's Mutex and Atomic, task executors) is used only in a
# file that Linux alone compiles (it opens with `#if os(Linux)`) or under an `@available` /
# `#available` of macOS 15 (DexTestSupport's `Locked` is the portable lock for tests).
python3 - <<'PY'
import pathlib, re, sys
newer = re.compile(r"\b(import Synchronization|Mutex[<(]|Atomic<|TaskExecutor\b|executorPreference|withTaskExecutorPreference)")
bad = []
for path in sorted(list(pathlib.Path("Sources").rglob("*.swift")) + list(pathlib.Path("Tests").rglob("*.swift"))):
    text = path.read_text(encoding="utf-8")
    code = [l for l in text.splitlines() if l.strip() and not l.strip().startswith("//")]
    if code and code[0].startswith("#if os(Linux)"):
        continue
    if re.search(r"[@#]available\(macOS 15", text):
        continue
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip().startswith("//") and newer.search(line):
            bad.append(f"{path}:{number}: {line.strip()}")
if bad:
    sys.exit("error: APIs newer than the package's Apple platforms, outside a Linux-only file or an "
             "availability check:\n" + "\n".join(bad))
PY
# Every label category is decided once, in Scripts/label-categories.txt: the keyword vocabulary,
# the WordNet lexicon and the ImageNet label table made from it are regenerated into a
# temporary folder and must equal the committed ones (the WordNet two where wordnet-base is
# installed; the script says when it skips one).
python3 Scripts/label-categories.py --check
# Every logger the SDK and the example programs make is labelled `dexkit.<module>[.<part>]` in
# lower case (`dexkit.imaging.classifier`; an example names itself as the module:
# `dexkit.pixscan`, `dexkit.proxy.upstream`), so a host or an operator can filter DexKit's logs
# by one prefix; a label that is not a string literal is refused too, since it cannot be
# checked. Test code is exempt (Tests/ folders and the examples' `...Testing` support targets,
# whose quiet loggers a caller names).
python3 - <<'PY'
import pathlib, re, sys
def checked(path):
    parts = path.parts
    if any(p == "Tests" or p.startswith(".build") for p in parts):
        return False
    return parts[0] == "Sources" or not any(p.endswith("Testing") for p in parts)
paths = list(pathlib.Path("Sources").rglob("*.swift")) + list(pathlib.Path("Examples").rglob("*.swift"))
bad = []
for path in sorted(p for p in paths if checked(p)):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in re.finditer(r'Logger\(label:\s*("([^"\\]*)")?', line):
            if match.group(2) is None or not re.fullmatch(r"dexkit(\.[a-z0-9]+)+", match.group(2)):
                bad.append(f"{path}:{number}: {line.strip()}")
if bad:
    sys.exit("error: Logger labels in Sources/ and Examples/ must match ^dexkit(\\.[a-z0-9]+)+$:\n"
             + "\n".join(bad))
PY
# The C shims' result codes are one list, Sources/CDexStatus/include/CDexStatus.h: no other C
# file under Sources/ defines a list of its own (an enumerator `..._OK = 0`, a `DEX_STATUS_...`
# value, a `#define` of a status), the header's codes are distinct, and DexImaging's ShimStatus
# maps every one of them (the compiler checks the other direction: a name not in the header).
python3 - <<'PY'
import pathlib, re, sys
header = pathlib.Path("Sources/CDexStatus/include/CDexStatus.h")
codes = re.findall(r"^\s*(DEX_STATUS_[A-Z0-9_]+)\s*=\s*(\d+)\s*,", header.read_text(), re.M)
errors = []
if not codes:
    errors.append(f"{header}: no DEX_STATUS_ codes found")
values = [value for _, value in codes]
if len(set(values)) != len(values):
    errors.append(f"{header}: two codes share a value")
own_list = re.compile(
    r"\b[A-Z][A-Z0-9_]*_OK\s*=\s*0\b|\bDEX_STATUS_[A-Z0-9_]+\s*=|#\s*define\s+\w*STATUS\w*")
for path in sorted(pathlib.Path("Sources").glob("C*/**/*")):
    if path.suffix not in (".c", ".h") or path == header:
        continue
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if own_list.search(line):
            errors.append(f"{path}:{number}: status codes belong in {header}: {line.strip()}")
mapping = pathlib.Path("Sources/DexImaging/ShimStatus.swift").read_text()
for name, _ in codes:
    if not re.search(rf"case {name}:", mapping):
        errors.append(f"Sources/DexImaging/ShimStatus.swift: {name} is not mapped")
if errors:
    sys.exit("error: C status codes:\n" + "\n".join(errors))
PY
# The largest side is written in Swift (DecodingLimits.largestDimension, which the portable
# build reads without the C shim) and in C (DEX_MAX_IMAGE_SIDE, the shim's own clamp): the same.
swift_side=$(sed -n 's/.*public static let largestDimension = \([0-9_]*\).*/\1/p' \
  Sources/DexImaging/DecodingLimits.swift | tr -d _)
c_side=$(sed -n 's/^#define DEX_MAX_IMAGE_SIDE \([0-9]*\).*/\1/p' \
  Sources/CDexImageShim/include/CDexImageShim.h)
if [ -z "$swift_side" ] || [ "$swift_side" != "$c_side" ]; then
  echo "error: DecodingLimits.largestDimension ($swift_side) and DEX_MAX_IMAGE_SIDE ($c_side) differ" >&2
  exit 1
fi
# The Apple sketch in Extending DexKit is the code AppleSketchesTests compiles.
python3 Scripts/apple-sketches.py
# The privacy manifests are property lists, and each declares reasons for what it lists.
python3 - <<'PY'
import pathlib, plistlib, sys
for path in sorted(pathlib.Path("Sources").glob("*/PrivacyInfo.xcprivacy")):
    manifest = plistlib.loads(path.read_bytes())
    for entry in manifest["NSPrivacyAccessedAPITypes"]:
        if not entry.get("NSPrivacyAccessedAPITypeReasons"):
            sys.exit(f"error: {path}: {entry['NSPrivacyAccessedAPIType']} has no reason")
PY
# Once a release is cut, the newest version in CHANGELOG.md is the one the code reports.
version=$(sed -n 's/.*public static let \(major\|minor\|patch\) = \([0-9]*\).*/\2/p' \
  Sources/DexModel/DexKitVersion.swift | paste -sd.)
released=$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' CHANGELOG.md | head -n 1)
if [ -n "$released" ] && [ "$released" != "$version" ]; then
  echo "error: CHANGELOG.md's newest release is $released, DexKitVersion says $version" >&2
  exit 1
fi
# Every package a script installs comes from Scripts/packages.tsv through Scripts/packages.sh:
# no other script calls apt-get install or pip install itself.
if grep -nE '(apt-get|apt|pip3?|python3 -m pip) install|dexkit_(apt|pip)_install [a-z]' \
  Scripts/*.sh .ci/run | grep -vE '^Scripts/(packages|bootstrap|lint)\.sh:'; then
  echo "error: install packages through Scripts/packages.tsv (dexkit_install_group), not by hand" >&2
  exit 1
fi
# Every package of the table has a name (or -) for each distribution, and a reason.
awk -F'\t' '!/^#/ && NF != 6 { print "Scripts/packages.tsv:" NR ": " NF " columns, not 6"; bad = 1 }
  END { exit bad }' Scripts/packages.tsv
