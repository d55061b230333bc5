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
    .executable(name: "dex", targets: ["dex"]),
    .executable(name: "dex-demo", targets: ["DexDemo"]),
    .executable(name: "custom-classifier", targets: ["CustomClassifier"]),
    .library(name: "DexProxy", targets: ["DexProxy"]),
    .executable(name: "dex-proxy", targets: ["dex-proxy"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    // The dex-proxy example backend, and the real HTTP servers DexCloudTests start on 127.0.0.1.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    // `swift package generate-documentation` (Scripts/docs.sh); a command plugin, not linked.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // MARK: Model (no dependencies at all)
    .target(name: "DexModel"),

    // MARK: Imaging
    // libjpeg-turbo and libpng come from the system (pkg-config); the shim is the only C that
    // touches them. On Apple platforms hosts bring their own ImageDownscaling conformance.
    .systemLibrary(
      name: "CJPEG",
      pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]
    ),
    .systemLibrary(
      name: "CPNG",
      pkgConfig: "libpng16",
      providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
    ),
    .target(
      name: "CDexImageShim",
      dependencies: ["CJPEG", "CPNG"],
      cSettings: [.define("NDEBUG")],
      linkerSettings: [.linkedLibrary("m"), .linkedLibrary("pthread")]
    ),
    .target(
      name: "DexImaging",
      dependencies: [
        "DexModel",
        .product(name: "Logging", package: "swift-log"),
        .target(name: "CDexImageShim", condition: .when(platforms: [.linux, .android])),
      ],
      // EfficientNet-Lite0 weights, manifest, ImageNet labels and their licences (classifier).
      resources: [.copy("Classifier/ClassifierResources")]
    ),

    .executableTarget(
      name: "DexImagingBenchmark",
      dependencies: ["DexImaging"],
      path: "Benchmarks/DexImaging/DexImagingBenchmark"
    ),

    // MARK: Cloud
    .target(
      name: "DexCloud",
      dependencies: [
        "DexModel",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
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
      name: "dex",
      dependencies: [
        "DexKit",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Examples/dex",
      resources: [.copy("Resources/sample.jpg")]
    ),
    .executableTarget(
      name: "dex-scan-benchmark",
      dependencies: [
        "DexKit", "DexProxy", "DexTestSupport",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      path: "Benchmarks/DexKit/DexScanBenchmark"
    ),
    .executableTarget(
      name: "CustomClassifier",
      dependencies: ["DexKit"],
      path: "Examples/CustomClassifier",
      exclude: ["labels.sh"]
    ),
    .executableTarget(
      name: "DexDemo",
      dependencies: ["DexKit"],
      path: "Examples/DexDemo",
      resources: [.copy("Resources")]
    ),
    .target(
      name: "DexProxy",
      dependencies: [
        "DexCloud",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      path: "Examples/DexProxy/Sources/DexProxy"
    ),
    .executableTarget(
      name: "dex-proxy",
      dependencies: [
        "DexProxy",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ],
      path: "Examples/DexProxy/Sources/dex-proxy"
    ),

    // MARK: Tests
    .testTarget(
      name: "DexModelTests", dependencies: ["DexModel", "DexTestTraits"],
      resources: [.copy("Fixtures")]),
    .testTarget(
      name: "DexImagingTests", dependencies: ["DexImaging", "DexTestTraits"],
      resources: [.copy("Classifier/Fixtures"), .copy("Resources")]),
    // Helpers shared by the test targets and the scan benchmark (log capture, loopback HTTP
    // servers, child processes, the off-the-cooperative-pool executor); not a product.
    .target(
      name: "DexTestSupport",
      dependencies: [
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ],
      path: "Tests/DexTestSupport"
    ),
    // Swift Testing traits for the test targets (kept apart so that the benchmark does not link
    // the Testing library).
    .target(
      name: "DexTestTraits", dependencies: ["DexTestSupport"], path: "Tests/DexTestTraits"),
    .testTarget(
      name: "DexCloudTests",
      dependencies: [
        "DexCloud", "DexTestSupport",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
    .testTarget(
      name: "DexProxyTests",
      dependencies: [
        "DexProxy", "DexCloud", "DexModel", "DexKit", "DexTestSupport",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      resources: [.copy("Photos")]
    ),
    .testTarget(
      name: "DexStorageTests", dependencies: ["DexStorage", "DexStoreCrashProbe", "DexTestSupport"]),
    .testTarget(
      name: "DexKitTests", dependencies: ["DexKit", "dex", "DexTestSupport", "DexTestTraits"],
      resources: [.copy("Photos")]),
  ],
  swiftLanguageModes: [.v6]
)
