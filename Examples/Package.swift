// swift-tools-version: 6.2
// DexKit's example apps, a package of their own so that the SDK (the package one folder up)
// resolves none of their dependencies:
//   dex                the command-line app: scan, list, show, export an HTML gallery, backups
//   dex-demo           the model layer offline: prompt, tolerant parser, matcher, entries
//   custom-classifier  a different on-device engine plugged into DexScanner
// The dex-proxy backend is a package of its own too, in DexProxy/.

import PackageDescription

let dexKit: Target.Dependency = .product(name: "DexKit", package: "DexKit")

let package = Package(
  name: "DexKitExamples",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "DexKit", path: ".."),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    // The terminal card both apps print an entry as.
    .target(name: "DexTerminal", dependencies: [dexKit], path: "DexTerminal"),
    .executableTarget(
      name: "dex",
      dependencies: [
        "DexTerminal", dexKit,
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "dex", resources: [.copy("Resources/sample.jpg")]),
    .executableTarget(
      name: "dex-demo", dependencies: ["DexTerminal", dexKit], path: "DexDemo",
      resources: [.copy("Resources")]),
    .executableTarget(
      name: "custom-classifier", dependencies: [dexKit], path: "CustomClassifier",
      resources: [.copy("labels.sh")]),
    .testTarget(
      name: "DexCommandLineTests",
      dependencies: [
        "dex", "custom-classifier", .product(name: "DexTestSupport", package: "DexKit"),
      ],
      path: "Tests/DexCommandLineTests"),
  ],
  swiftLanguageModes: [.v6]
)
