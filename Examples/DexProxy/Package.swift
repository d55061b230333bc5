// swift-tools-version: 6.2
// dex-proxy, DexKit's reference backend: a Hummingbird 2 server built on DexCloudServer. A
// package of its own so that the SDK (two folders up) never resolves a server framework.
//
// Products: the DexProxy library and the dex-proxy executable; DexProxyTesting holds the
// loopback HTTP helpers its tests and the benchmarks share. Tests: the proxy's own, and
// DexCloud's client against real HTTP servers on 127.0.0.1 (DexCloudLoopbackTests).

import PackageDescription

let package = Package(
  name: "DexProxy",
  platforms: [.macOS(.v14)],
  products: [
    .library(name: "DexProxy", targets: ["DexProxy"]),
    .executable(name: "dex-proxy", targets: ["dex-proxy"]),
    .library(name: "DexProxyTesting", targets: ["DexProxyTesting"]),
  ],
  dependencies: [
    .package(name: "DexKit", path: "../.."),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
  ],
  targets: [
    .target(
      name: "DexProxy",
      dependencies: [
        .product(name: "DexCloud", package: "DexKit"),
        .product(name: "DexCloudServer", package: "DexKit"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
    .executableTarget(
      name: "dex-proxy",
      dependencies: [
        "DexProxy",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ]
    ),
    .target(
      name: "DexProxyTesting",
      dependencies: [
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ]
    ),
    .testTarget(
      name: "DexProxyTests",
      dependencies: [
        "DexProxy", "DexProxyTesting",
        .product(name: "DexKit", package: "DexKit"),
        .product(name: "DexCloudServer", package: "DexKit"),
        .product(name: "DexTestSupport", package: "DexKit"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      resources: [.copy("Photos")]
    ),
    .testTarget(
      name: "DexCloudLoopbackTests",
      dependencies: [
        "DexProxyTesting",
        .product(name: "DexCloud", package: "DexKit"),
        .product(name: "DexCloudServer", package: "DexKit"),
        .product(name: "DexModel", package: "DexKit"),
        .product(name: "DexTestSupport", package: "DexKit"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
