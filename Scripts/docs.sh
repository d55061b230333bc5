#!/usr/bin/env bash
# Builds the DocC documentation of every module with `swift package generate-documentation`
# (swift-docc-plugin), warnings fatal (a broken link or an unknown symbol fails the run), then
# checks that every public symbol is documented and curated (Scripts/docs-coverage.py).
#
# The eight modules are built as one combined archive: each module's archive is built with the
# archives of the modules it depends on, so a doc comment in DexStorage can link a DexModel
# symbol as ``/DexModel/DexEntry`` (the leading slash names the other module; DocC does not find
# re-exported symbols by their bare name).
#
# Output: .build-docs/DexKit.doccarchive (all eight modules), and one archive per module under
# .build-docs/plugins/Swift-DocC/outputs/intermediates/. A separate scratch path keeps the
# documentation build from invalidating the main .build.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/bootstrap.sh
modules=(DexModel DexImaging DexCloud DexCloudServer DexStorage DexKit DexKitTesting DexTextRecognition)
targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done

start=$SECONDS
swift package --scratch-path .build-docs \
  --allow-writing-to-directory .build-docs \
  generate-documentation "${targets[@]}" \
  --enable-experimental-combined-documentation \
  --warnings-as-errors \
  --experimental-documentation-coverage --coverage-summary-level brief \
  --output-path .build-docs/DexKit.doccarchive
echo "Documentation built for ${modules[*]} in $((SECONDS - start)) s"

# Every public symbol documented (symbol graph and DocC's coverage report) and curated in a
# hand-written Topics group (render JSON): fails the run otherwise.
python3 Scripts/docs-coverage.py --scratch-path .build-docs "${modules[@]}"
