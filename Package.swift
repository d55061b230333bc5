// swift-tools-version: 6.0
// DexKit: turn a photo into a structured "Dex entry" and keep a browsable collection of them.

import PackageDescription

let package = Package(
  name: "DexKit",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: [
    .library(name: "DexModel", targets: ["DexModel"]),
    .library(name: "DexImaging", targets: ["DexImaging"]),
    .library(name: "DexCloud", targets: ["DexCloud"]),
    .library(name: "DexStorage", targets: ["DexStorage"]),
    .library(name: "DexKit", targets: ["DexKit"]),
    .executable(name: "dex-demo", targets: ["DexDemo"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
  ],
  targets: [
    // MARK: Model (no dependencies at all)
    .target(name: "DexModel"),

    // MARK: Imaging
    .target(
      name: "DexImaging",
      dependencies: [
        "DexModel",
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: Cloud
    .target(
      name: "DexCloud",
      dependencies: [
        "DexModel",
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: Storage
    .target(
      name: "DexStorage",
      dependencies: [
        "DexModel",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // A child process the DexStorage crash-safety tests SIGKILL mid-write.
    .executableTarget(
      name: "DexStoreCrashProbe",
      dependencies: ["DexStorage"],
      path: "Tests/DexStorageCrashProbe"
    ),
    // Release-built benchmark: DexStore beside a raw sqlite3 C API baseline.
    .executableTarget(
      name: "dex-storage-bench",
      dependencies: [
        "DexStorage",
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      path: "Benchmarks/DexStorage/Sources"
    ),

    // MARK: Glue
    .target(
      name: "DexKit",
      dependencies: [
        "DexModel", "DexImaging", "DexCloud", "DexStorage",
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: Examples
    .executableTarget(
      name: "DexDemo",
      dependencies: ["DexKit"],
      path: "Examples/DexDemo",
      resources: [.copy("Resources")]
    ),

    // MARK: Tests
    .testTarget(name: "DexModelTests", dependencies: ["DexModel"], resources: [.copy("Fixtures")]),
    .testTarget(name: "DexImagingTests", dependencies: ["DexImaging"]),
    .testTarget(name: "DexCloudTests", dependencies: ["DexCloud"]),
    .testTarget(name: "DexStorageTests", dependencies: ["DexStorage", "DexStoreCrashProbe"]),
    .testTarget(name: "DexKitTests", dependencies: ["DexKit"]),
  ],
  swiftLanguageModes: [.v6]
)
