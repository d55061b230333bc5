// swift-tools-version: 6.2
// dex-proxy, DexKit's reference backend: a Hummingbird 2 server built on DexCloudServer. A
// package of its own so that the SDK (two folders up) never resolves a server framework.
//
// Products: the DexProxy library and the dex-proxy executable; DexProxyTesting holds the
// loopback HTTP helpers its tests and the benchmarks share. Tests: the proxy's own, and
// DexCloud's client against real HTTP servers on 127.0.0.1 (DexCloudLoopbackTests).

import PackageDescription

func sdk(_ module: String) -> Target.Dependency { .product(name: module, package: "DexKit") }
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let postgres: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let lifecycle: Target.Dependency = .product(
  name: "ServiceLifecycle", package: "swift-service-lifecycle")
let metrics: Target.Dependency = .product(name: "CoreMetrics", package: "swift-metrics")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
let httpClient: Target.Dependency = .product(
  name: "AsyncHTTPClient", package: "async-http-client")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let nioLocks: Target.Dependency = .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
let heap: Target.Dependency = .product(name: "HeapModule", package: "swift-collections")
let nioHTTPTypes: Target.Dependency = .product(name: "NIOHTTPTypes", package: "swift-nio-extras")

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
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
  ],
  targets: [
    .target(
      name: "DexProxy",
      dependencies: [
        sdk("DexCloud"), sdk("DexCloudServer"), sdk("DexModel"), logging, hummingbird, httpTypes,
        crypto, postgres, nioSSL, lifecycle, metrics, prometheus, httpClient, nioCore, nioPosix, nioHTTPTypes,
        heap, nioLocks, nioHTTP1,
      ]),
    .executableTarget(name: "dex-proxy", dependencies: ["DexProxy", logging, hummingbird]),
    .target(
      name: "DexProxyTesting",
      dependencies: ["DexProxy", sdk("DexCloud"), logging, hummingbird, httpTypes]),
    .testTarget(
      name: "DexProxyTests",
      dependencies: [
        "DexProxy", "DexProxyTesting", sdk("DexKit"), sdk("DexCloudServer"),
        sdk("DexTestSupport"), sdk("DexModel"), logging, hummingbird, httpTypes,
        crypto, postgres, nioCore, nioPosix,
      ],
      resources: [.copy("Photos")]),
    .testTarget(
      name: "DexCloudLoopbackTests",
      dependencies: [
        "DexProxyTesting", sdk("DexCloud"), sdk("DexCloudServer"), sdk("DexModel"),
        sdk("DexTestSupport"), logging, hummingbird, httpTypes,
      ]),
  ],
  swiftLanguageModes: [.v6]
)
