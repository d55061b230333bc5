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
    .library(name: "DexProxy", targets: ["DexProxy"]),
    .executable(name: "dex-proxy", targets: ["dex-proxy"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    // The dex-proxy example backend, and the real HTTP servers DexCloudTests start on 127.0.0.1.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
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
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),

    // MARK: Storage
    .target(
      name: "DexStorage",
      dependencies: [
        "DexModel",
        .product(name: "Logging", package: "swift-log"),
      ]
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
    .testTarget(name: "DexModelTests", dependencies: ["DexModel"], resources: [.copy("Fixtures")]),
    .testTarget(name: "DexImagingTests", dependencies: ["DexImaging"]),
    .testTarget(
      name: "DexCloudTests",
      dependencies: [
        "DexCloud",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
    .testTarget(
      name: "DexProxyTests",
      dependencies: [
        "DexProxy", "DexCloud", "DexModel",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
    .testTarget(name: "DexStorageTests", dependencies: ["DexStorage"]),
    .testTarget(name: "DexKitTests", dependencies: ["DexKit"]),
  ],
  swiftLanguageModes: [.v6]
)
