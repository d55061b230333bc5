// swift-tools-version: 6.2
// DexKit's benchmarks, a package of their own so that the SDK (one folder up) resolves none of
// their dependencies. Each runs from a script beside its sources, which builds it in release,
// runs the named peer in the same run and prints ratios (ours/peer) and peak RSS:
//   DexImaging/run.sh               DexImagingBenchmark beside Pillow and libvips
//   DexImaging/isolation.sh         dex-isolation-bench: isolated against in-process decoding
//   DexImaging-classifier/bench.py  ClassifierBench beside onnxruntime
//   DexKit/run.sh                   dex-scan-benchmark: bytes → local guess → final result
//   DexStorage/run.sh               dex-storage-bench beside raw SQLite
//   DexCloud/run.sh                 DexCloudBench beside Python's hmac
//   DexProxy/run.sh                 dex-proxy-load: two proxies, in-memory store beside PostgreSQL
//   DexProxy/paired.sh              dex-proxy-load against a baseline build, ABBA rounds
//   DexProxyStreaming/run.sh        dex-proxy-streaming-bench: streamed beside whole replies

import PackageDescription

func sdk(_ module: String) -> Target.Dependency { .product(name: module, package: "DexKit") }
func proxy(_ module: String) -> Target.Dependency {
  .product(name: module, package: "DexKitExamples")
}
/// What a benchmark that runs real `dex-proxy` instances on loopback needs.
let loopbackProxy: [Target.Dependency] = [
  sdk("DexCloudServer"), proxy("DexProxy"), proxy("DexProxyTesting"),
  .product(name: "Logging", package: "swift-log"),
]

let package = Package(
  name: "DexKitBenchmarks",
  platforms: [.macOS(.v14)],
  dependencies: [
    // Default traits: the system image codecs, the classifier's oneDNN backend, Tesseract.
    .package(name: "DexKit", path: ".."),
    .package(name: "DexKitExamples", path: "../Examples"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .executableTarget(
      name: "DexImagingBenchmark", dependencies: [sdk("DexImaging")],
      path: "DexImaging/DexImagingBenchmark"),
    // IsolatedImageDecoder against ImageDownscaler, paired (DexImaging/isolation.sh).
    .executableTarget(
      name: "dex-isolation-bench", dependencies: [sdk("DexImaging")],
      path: "DexImaging/IsolationBenchmark"),
    // TesseractTextRecognizer vs the tesseract command line (DexTextRecognition/run.sh).
    .executableTarget(
      name: "dex-text-bench", dependencies: [sdk("DexTextRecognition"), sdk("DexImaging")],
      path: "DexTextRecognition/Sources"),
    .executableTarget(
      name: "ClassifierBench", dependencies: [sdk("DexImaging")],
      path: "DexImaging-classifier/Sources/ClassifierBench"),
    .executableTarget(
      name: "dex-scan-benchmark",
      dependencies: [sdk("DexKit")] + loopbackProxy,
      path: "DexKit/DexScanBenchmark"),
    .executableTarget(
      name: "dex-storage-bench",
      dependencies: [
        sdk("DexStorage"), sdk("DexModel"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      path: "DexStorage/Sources"),
    .executableTarget(
      name: "dex-proxy-load",
      dependencies: [sdk("DexCloud")] + loopbackProxy,
      path: "DexProxy", exclude: ["run.sh", "paired.sh"]),
    .executableTarget(
      name: "dex-proxy-streaming-bench",
      dependencies: [sdk("DexCloud"), sdk("DexModel")] + loopbackProxy,
      path: "DexProxyStreaming", exclude: ["run.sh"]),
    .executableTarget(
      name: "DexCloudBench", dependencies: [sdk("DexCloud"), sdk("DexCloudServer")],
      path: "DexCloud", exclude: ["run.sh", "peer.py"]),
  ],
  swiftLanguageModes: [.v6]
)
