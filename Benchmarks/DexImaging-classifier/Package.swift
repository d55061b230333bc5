// swift-tools-version: 6.0
// Benchmark of DexImaging's offline classifier; run through bench.py (release build).

import PackageDescription

let package = Package(
  name: "DexImagingClassifierBench",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "DexKit", path: "../..")],
  targets: [
    .executableTarget(
      name: "ClassifierBench",
      dependencies: [.product(name: "DexImaging", package: "DexKit")]
    )
  ],
  swiftLanguageModes: [.v6]
)
