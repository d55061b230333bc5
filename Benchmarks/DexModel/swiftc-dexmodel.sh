# Sourced by the DexModel benchmarks: builds one tree's DexModel sources into a benchmark binary
# with swiftc -O (one module, so the benchmark needs no import), with a Bundle.module stand-in
# pointing at that tree's Sources/DexModel (SwiftPM generates the real one), and extracts
# another revision's DexModel sources.

# dexmodel_binary TREE MODULE MAIN.swift OUTPUT
dexmodel_binary() {
  local shim="$2-$RANDOM.swift"
  shim="$(dirname "$4")/$shim"
  printf 'import Foundation\nextension Foundation.Bundle {\n  static let module = Bundle(path: "%s") ?? .main\n}\n' \
    "$1/Sources/DexModel" > "$shim"
  swiftc -O -parse-as-library -module-name "$2" "$1"/Sources/DexModel/*.swift "$shim" "$3" -o "$4"
}

# dexmodel_revision REV DIRECTORY: REV's Sources/DexModel under DIRECTORY.
dexmodel_revision() {
  mkdir -p "$2"
  git archive "$1" Sources/DexModel | tar -x -C "$2"
}

# A scratch folder for the binaries, removed when the sourcing script exits.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
