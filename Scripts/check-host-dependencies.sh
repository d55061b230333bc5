#!/usr/bin/env bash
# What an app that adds DexKit resolves: builds a throw-away host package that depends on this
# checkout by path and imports DexKit, resolves it, and fails when anything but swift-log,
# swift-crypto, GRDB, their own dependencies and the DocC plugin comes with it (no Hummingbird,
# SwiftNIO, swift-argument-parser, swift-http-types, database drivers...).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
host="$(mktemp -d)"
trap 'rm -rf "$host"' EXIT
mkdir -p "$host/Sources/HostApp"
cat > "$host/Package.swift" <<PACKAGE
// swift-tools-version: 6.2
import PackageDescription
let package = Package(
  name: "HostApp",
  dependencies: [.package(name: "DexKit", path: "$root")],
  targets: [
    .executableTarget(name: "HostApp", dependencies: [.product(name: "DexKit", package: "DexKit")])
  ]
)
PACKAGE
printf 'import DexKit\nprint(DexCategory.allCases.count)\n' > "$host/Sources/HostApp/main.swift"
swift package --package-path "$host" resolve >/dev/null 2>&1
resolved=$(swift package --package-path "$host" show-dependencies --format flatlist | sort -u)
self=$(basename "$root")  # a package depended on by path is named after its folder
allowed="${self,,} swift-log swift-crypto swift-asn1 grdb.swift swift-docc-plugin swift-docc-symbolkit"
unexpected=()
for package in $resolved; do
  [[ " $allowed " == *" ${package,,} "* ]] || unexpected+=("$package")
done
echo "A host that adds DexKit resolves: $(echo $resolved | tr '\n' ' ')"
if ((${#unexpected[@]})); then
  echo "error: the SDK drags in ${unexpected[*]}; keep examples, benchmarks and servers in packages of their own" >&2
  exit 1
fi

# What DexKit links: the targets the DexKit product builds, from the manifest. The text
# recognition (CTesseract, CDexTextShim, DexTextRecognition: libtesseract) is a product of its
# own that a host opts into; DexKit must not reach it.
swift package --package-path "$root" describe --type json 2>/dev/null | python3 -c '
import json, sys
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
product = next(p for p in package["products"] if p["name"] == "DexKit")
seen, todo = set(), list(product["targets"])
while todo:
    name = todo.pop()
    if name in seen or name not in targets:
        continue
    seen.add(name)
    todo += targets[name].get("target_dependencies", [])
forbidden = sorted(seen & {"CTesseract", "CDexTextShim", "DexTextRecognition"})
print("DexKit builds the targets: " + " ".join(sorted(seen)))
if forbidden:
    sys.exit("error: DexKit reaches " + " ".join(forbidden) + ", so every host would link Tesseract")
'
