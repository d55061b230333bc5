#!/usr/bin/env bash
# Builds the DocC documentation of every module and fails on any DocC warning (broken links,
# missing symbols in Topics, ...). Output: .build-docs/<Module>.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/bootstrap.sh
modules=(DexModel DexImaging DexCloud DexStorage DexKit)
graphs=.build-docs/symbol-graphs
mkdir -p "$graphs"  # kept between runs: an incremental build only re-emits changed modules
swift build --scratch-path .build-docs --target DexKit \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
  -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
for module in "${modules[@]}"; do
  # DexKit re-exports the other modules, whose symbols (and their links into their own
  # catalogs) then appear in its graph; each of those modules is checked strictly on its own.
  strict="--warnings-as-errors"
  [ "$module" = DexKit ] && strict=""
  module_graphs=".build-docs/graphs-$module"
  rm -rf "$module_graphs" && mkdir -p "$module_graphs"
  cp "$graphs/$module".symbols.json "$module_graphs/"
  cp "$graphs/$module"@*.symbols.json "$module_graphs/" 2>/dev/null || true
  docc convert "Sources/$module/$module.docc" \
    --fallback-display-name "$module" --fallback-bundle-identifier "dev.dexkit.$module" \
    --additional-symbol-graph-dir "$module_graphs" \
    --output-path ".build-docs/$module.doccarchive" $strict --analyze
done
echo "Documentation built for ${modules[*]}"
