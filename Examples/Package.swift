// swift-tools-version: 6.2
// DexKit's example apps and reference backend: one package of their own, so that the SDK (the
// package one folder up) resolves none of their dependencies, and so that the SDK, swift-crypto
// and the other dependencies they share are built once for all of them:
//   dex                the command-line app: scan, list, show, export an HTML gallery, backups
//   dex-demo           the model layer offline: prompt, tolerant parser, matcher, entries
//   custom-classifier  a different on-device engine plugged into DexScanner
//   dex-proxy          the reference backend: a Hummingbird 2 server built on DexCloudServer
//                      (sources in DexProxy/), with PostgreSQL-shared state and metrics
//   pixscan            swipe triage of a photo folder in the browser: a Hummingbird 2 server on
//                      127.0.0.1 (sources in PixScan/), delete queue to the freedesktop trash,
//                      on-device text recognition, progress in SQLite (GRDB)
// Tests: the command-line apps', the proxy's own, and DexCloud's client against real HTTP
// servers on 127.0.0.1 (DexCloudLoopbackTests).

import PackageDescription

func sdk(_ module: String) -> Target.Dependency { .product(name: module, package: "DexKit") }
let dexKit = sdk("DexKit")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let argumentParser: Target.Dependency = .product(
  name: "ArgumentParser", package: "swift-argument-parser")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let postgres: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let lifecycle: Target.Dependency = .product(
  name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals: Target.Dependency = .product(
  name: "UnixSignals", package: "swift-service-lifecycle")
let metrics: Target.Dependency = .product(name: "CoreMetrics", package: "swift-metrics")
let metricsTestKit: Target.Dependency = .product(name: "MetricsTestKit", package: "swift-metrics")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
let httpClient: Target.Dependency = .product(
  name: "AsyncHTTPClient", package: "async-http-client")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let nioLocks: Target.Dependency = .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
let heap: Target.Dependency = .product(name: "HeapModule", package: "swift-collections")
let nioHTTPTypes: Target.Dependency = .product(name: "NIOHTTPTypes", package: "swift-nio-extras")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
let subprocess: Target.Dependency = .product(name: "Subprocess", package: "swift-subprocess")

let package = Package(
  name: "DexKitExamples",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "dex", targets: ["dex"]),
    .executable(name: "dex-proxy", targets: ["dex-proxy"]),
    .library(name: "DexProxy", targets: ["DexProxy"]),
    // Loopback HTTP helpers the proxy's tests and the benchmarks share.
    .library(name: "DexProxyTesting", targets: ["DexProxyTesting"]),
    .executable(name: "pixscan", targets: ["pixscan"]),
    .library(name: "PixScanCore", targets: ["PixScanCore"]),
  ],
  dependencies: [
    .package(name: "DexKit", path: ".."),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    // Child processes: custom-classifier's command, and the tests' (Tests/Support).
    .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
  ],
  targets: [
    // MARK: Command-line apps
    // The terminal card both apps print an entry as.
    .target(name: "DexTerminal", dependencies: [dexKit], path: "DexTerminal"),
    .executableTarget(
      name: "dex",
      dependencies: ["DexTerminal", dexKit, sdk("DexTextRecognition"), argumentParser, logging],
      path: "dex", resources: [.copy("Resources/sample.jpg")]),
    .executableTarget(
      name: "dex-demo", dependencies: ["DexTerminal", dexKit], path: "DexDemo",
      resources: [.copy("Resources")]),
    .executableTarget(
      name: "custom-classifier",
      dependencies: [dexKit, sdk("DexImaging"), "DexTerminal", subprocess],
      path: "CustomClassifier",
      resources: [.copy("labels.sh")]),

    // MARK: What the two servers share
    // How dex-proxy and PixScan start Hummingbird (ServerSetup: binding, read deadlines, the
    // request log and metrics before the guards and routes, services, the start-up line).
    .target(
      name: "HTTPSupport",
      dependencies: [
        hummingbird, logging, metrics, lifecycle, unixSignals, nioCore, nioHTTPTypes, nioLocks,
      ],
      path: "HTTPSupport/Sources/HTTPSupport"),

    // MARK: The reference backend
    .target(
      name: "DexProxy",
      dependencies: [
        "HTTPSupport",
        sdk("DexCloud"), sdk("DexCloudServer"), sdk("DexModel"), logging, hummingbird, httpTypes,
        crypto, postgres, nioSSL, lifecycle, metrics, prometheus, httpClient, nioCore, nioPosix,
        nioHTTPTypes, heap, nioLocks, nioHTTP1,
      ],
      path: "DexProxy/Sources/DexProxy"),
    .executableTarget(
      name: "dex-proxy", dependencies: ["DexProxy", "HTTPSupport", logging, hummingbird],
      path: "DexProxy/Sources/dex-proxy"),
    .target(
      name: "DexProxyTesting",
      dependencies: [
        "DexProxy", sdk("DexCloud"), sdk("DexCloudServer"), logging, hummingbird, httpTypes,
        nioLocks, lifecycle,
      ],
      path: "DexProxy/Sources/DexProxyTesting"),

    // MARK: PixScan
    // The triage logic (session, store, delete queue, trash mover, HTTP routes, the page) apart
    // from the executable, so that the tests drive it in process.
    .target(
      name: "PixScanCore",
      dependencies: [
        "CPixScanShim", "HTTPSupport", sdk("DexImaging"), logging, hummingbird, httpTypes, grdb,
        metrics, nioCore, nioLocks, nioPosix,
      ],
      path: "PixScan/Sources/PixScanCore", resources: [.copy("Resources")]),
    // renameat2(RENAME_NOREPLACE) for the trash move: Swift's Glibc module hides it.
    .target(name: "CPixScanShim", path: "PixScan/Sources/CPixScanShim"),
    .executableTarget(
      name: "pixscan",
      dependencies: [
        "PixScanCore", "DexTerminal", "HTTPSupport", sdk("DexImaging"),
        sdk("DexTextRecognition"), argumentParser, logging,
      ],
      path: "PixScan/Sources/pixscan"),

    // MARK: Tests
    // Test plumbing (log capture, child processes, clocks): see Tests/Support/README.md.
    .target(
      name: "DexExamplesTestSupport", dependencies: [logging, subprocess], path: "Tests/Support",
      exclude: ["README.md"]),
    .testTarget(
      name: "DexCommandLineTests",
      dependencies: ["dex", "custom-classifier", "DexExamplesTestSupport"],
      path: "Tests/DexCommandLineTests"),
    .testTarget(
      name: "DexProxyTests",
      dependencies: [
        // `dex` is run as a child process by AskCommandTests (built beside the tests).
        "dex", "DexProxy", "DexProxyTesting", "DexExamplesTestSupport", dexKit,
        sdk("DexCloudServer"),
        sdk("DexModel"), logging, hummingbird, httpTypes, crypto, postgres, nioCore, nioPosix,
        nioLocks,
      ],
      path: "DexProxy/Tests/DexProxyTests",
      resources: [.copy("Photos")]),
    .testTarget(
      name: "DexCloudLoopbackTests",
      dependencies: [
        "DexProxyTesting", "DexExamplesTestSupport", sdk("DexCloud"), sdk("DexCloudServer"),
        sdk("DexModel"), logging, hummingbird, httpTypes,
      ],
      path: "DexProxy/Tests/DexCloudLoopbackTests"),
    .testTarget(
      name: "PixScanTests",
      dependencies: [
        "PixScanCore", "DexProxyTesting", "DexExamplesTestSupport", sdk("DexImaging"),
        sdk("DexKitTesting"), logging, hummingbird, httpClient, nioCore, grdb, metrics,
        metricsTestKit,
      ],
      path: "PixScan/Tests/PixScanTests", resources: [.copy("Resources")]),
    .testTarget(
      name: "HTTPSupportTests",
      dependencies: [
        "HTTPSupport", "DexProxyTesting", "DexExamplesTestSupport", hummingbird, logging, metrics,
        metricsTestKit, nioCore,
      ],
      path: "HTTPSupport/Tests/HTTPSupportTests"),
  ],
  swiftLanguageModes: [.v6]
)
