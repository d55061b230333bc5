#!/usr/bin/env bash
# What a host's tests get from DexKitTesting: builds a small host package outside this
# repository that depends on this checkout by path, with an app target (a scan-and-save flow
# written against DexKit's protocols) and a test target that tests it with DexKitTesting alone:
# the in-memory store, the scripted cloud pass, the scripted downscaler, the fixed classifier and
# the sample photos. No network and no store on disk. The host depends on DexKit with its default
# traits off (`traits: []`), so it builds exactly what an Apple host builds, with no Linux-only C
# library, and its scanner comes from doubles alone (no Linux-only initialiser). Also fails when
# DexKitTesting imports a test framework.
#
# The host package and its build folder live at a fixed place under the temp directory
# (one per checkout), and files are rewritten only when they change, so a second run rebuilds
# nothing of DexKit. Set DEX_HOST_TESTING_SCRATCH to build somewhere else (for example on a
# CI cache; Scripts/test.sh passes its trait-less scratch folder, `.build-portable`, the one
# `swift test --disable-default-traits` uses).
# Arguments go to `swift test`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if grep -rlE --include='*.swift' '^\s*(@testable\s+)?import\s+(Testing|XCTest)\b' "$root/Sources/DexKitTesting"; then
  echo "error: DexKitTesting must not import a test framework (hosts use it from any)" >&2
  exit 1
fi

checkout_id=$(printf '%s' "$root" | sha1sum | cut -c1-12)
host="${TMPDIR:-/tmp}/dexkit-host-testing-$checkout_id"
scratch="${DEX_HOST_TESTING_SCRATCH:-$host/.build}"
mkdir -p "$host/Sources/HostApp" "$host/Tests/HostAppTests"

# Writes stdin to $1 only when it differs, so an unchanged package stays built.
put() {
  local temporary
  temporary=$(mktemp)
  cat > "$temporary"
  if cmp -s "$temporary" "$1"; then rm -f "$temporary"; else mv "$temporary" "$1"; fi
}

put "$host/Package.swift" <<PACKAGE
// swift-tools-version: 6.2
import PackageDescription
let package = Package(
  name: "HostApp",
  dependencies: [.package(name: "DexKit", path: "$root", traits: [])],
  targets: [
    .target(name: "HostApp", dependencies: [.product(name: "DexKit", package: "DexKit")]),
    .testTarget(
      name: "HostAppTests",
      dependencies: ["HostApp", .product(name: "DexKitTesting", package: "DexKit")]),
  ],
  swiftLanguageModes: [.v6]
)
PACKAGE

put "$host/Sources/HostApp/Collector.swift" <<'SWIFT'
import DexKit
import Foundation

/// The host app's feature under test: scan a photo and keep what was found.
public struct Collector: Sendable {
  let scanner: DexScanner
  let store: any DexStoring

  public init(scanner: DexScanner, store: any DexStoring) {
    self.scanner = scanner
    self.store = store
  }

  /// Scans `photo` and saves the entry with its JPEG and thumbnail; `nil` when the scan failed.
  public func scanAndSave(_ photo: Data) async throws -> (DexScanState, DexEntry?) {
    let final = await scanner.run(photo)
    guard let entry = final.makeEntry(), let image = final.imageData else { return (final, nil) }
    let saved = try await store.insert(entry, image: image, thumbnail: final.thumbnailData)
    return (final, saved)
  }
}
SWIFT

put "$host/Tests/HostAppTests/CollectorTests.swift" <<'SWIFT'
import DexKit
import DexKitTesting
import Foundation
import HostApp
import Testing

let tabby = ScanResult(
  commonName: "Tabby Cat", category: "animal", scientificName: "Felis catus",
  summary: "A striped domestic cat.", facts: ["Purrs"], rarity: "Common", confidence: 0.97)

@Test func aScannedPhotoIsSavedWithTheCloudsAnswer() async throws {
  let store = InMemoryDexStore()
  let vision = ScriptedVisionService(.result(tabby))
  let collector = Collector(
    scanner: DexScanner(
      classifier: FixedClassifier(category: .animal, label: "tabby"), visionService: vision,
      downscaler: ScriptedDownscaler()),
    store: store)
  let (final, saved) = try await collector.scanAndSave(try SamplePhoto.cat.data)
  let entry = try #require(saved)
  #expect(!final.isOffline)
  #expect(entry.commonName == "Tabby Cat")
  #expect(await vision.requests.map(\.categoryHint) == [.animal])
  #expect(try await store.imageData(for: entry.id) == final.imageData)
  #expect(final.imageData == (try SamplePhoto.cat.data))  // the scripted downscaler's pass-through
  #expect(try await store.count(matching: DexQuery(category: .animal, text: "tabby")) == 1)
}

@Test func aCloudFailureSavesTheOfflineEntry() async throws {
  let store = InMemoryDexStore()
  let collector = Collector(
    scanner: DexScanner(
      classifier: FixedClassifier(category: .food, label: "banana"),
      visionService: ScriptedVisionService(.failure()), downscaler: ScriptedDownscaler()),
    store: store)
  let (final, saved) = try await collector.scanAndSave(try SamplePhoto.fruit.data)
  #expect(final.isOffline)
  #expect(saved?.category == .food)
  #expect(try await store.countsByCategory() == [.food: 1])
}

@Test func aSilentCloudTimesOutAndNothingIsSaved() async throws {
  let store = InMemoryDexStore()
  let collector = Collector(
    scanner: DexScanner(
      classifier: FixedClassifier.blind, visionService: ScriptedVisionService(.hang),
      downscaler: ScriptedDownscaler(),
      configuration: DexScanner.Configuration(cloudTimeout: .milliseconds(200))),
    store: store)
  let (final, saved) = try await collector.scanAndSave(try SamplePhoto.dog.data)
  #expect(final.error == .timedOut)
  #expect(saved == nil)
  #expect(try await store.count(matching: DexQuery()) == 0)
}
SWIFT

start=$SECONDS
# Built the way every script here builds (Scripts/swift-build.sh: the same compile commands as
# .ci/run's portable build in the same scratch folder, so nothing it built is compiled again),
# then tested without building.
build_log=$(mktemp)
if ! bash "$root/Scripts/swift-build.sh" --package-path "$host" --scratch-path "$scratch" \
  --build-tests >"$build_log" 2>&1; then
  tail -n 30 "$build_log"
  rm -f "$build_log"
  echo "Host package failed to build ($host)" >&2
  exit 1
fi
rm -f "$build_log"
swift test --package-path "$host" --scratch-path "$scratch" --skip-build "$@" 2>&1 | tail -n 3
status=${PIPESTATUS[0]}
echo "Host package tested with DexKitTesting alone in $((SECONDS - start)) s ($host)"
exit "$status"
