// swift-tools-version: 6.2
// DexKit: turn a photo into a structured "Dex entry" and keep a browsable collection of them.
//
// This package is the SDK and nothing else: its products are libraries, and it depends on
// swift-log, swift-crypto and GRDB only (plus the DocC command plugin, which is never linked).
// The `dex` command-line app, the other examples and the `dex-proxy` backend (sources in
// `Examples/DexProxy/`) live in `Examples/`, a package of their own, and the benchmarks in
// `Benchmarks/`, each depending on this package by path, so an app that adds DexKit resolves no server framework,
// argument parser or database driver beyond SQLite through GRDB.

import PackageDescription

let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")

// The Linux-only C behind each trait: a dependency on it, and its sources' compilation, happen
// only on Linux with the trait on. Every file of those C targets (sources and the headers their
// module maps expose) is wrapped in `#if defined(__linux__) && defined(DEXKIT_TRAIT_...)`, so
// with the trait off, or on an Apple platform, they compile to nothing and need no library
// headers (`swift build --disable-default-traits` builds without any -dev package installed).
let imageCodecsOnLinux: TargetDependencyCondition? = .when(
  platforms: [.linux], traits: ["SystemImageCodecs"])
let oneDNNOnLinux: TargetDependencyCondition? = .when(platforms: [.linux], traits: ["OneDNN"])
let tesseractOnLinux: TargetDependencyCondition? = .when(platforms: [.linux], traits: ["Tesseract"])
let imageCodecsDefine: CSetting = .define(
  "DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS", .when(platforms: [.linux], traits: ["SystemImageCodecs"]))
let oneDNNDefine: CSetting = .define(
  "DEXKIT_TRAIT_ONEDNN", .when(platforms: [.linux], traits: ["OneDNN"]))
let tesseractDefine: CSetting = .define(
  "DEXKIT_TRAIT_TESSERACT", .when(platforms: [.linux], traits: ["Tesseract"]))

let package = Package(
  name: "DexKit",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: [
    .library(name: "DexModel", targets: ["DexModel"]),
    .library(name: "DexImaging", targets: ["DexImaging"]),
    .library(name: "DexCloud", targets: ["DexCloud"]),
    .library(name: "DexCloudServer", targets: ["DexCloudServer"]),
    .library(name: "DexStorage", targets: ["DexStorage"]),
    .library(name: "DexKit", targets: ["DexKit"]),
    // On-device text recognition over the system's Tesseract 5: a product of its own so that
    // an app that adds only DexKit links no OCR engine.
    .library(name: "DexTextRecognition", targets: ["DexTextRecognition"]),
    // Test doubles for hosts' tests: an in-memory store, a scripted cloud pass, a fixed
    // classifier and sample photos. Links no test framework.
    .library(name: "DexKitTesting", targets: ["DexKitTesting"]),
    // The worker process behind IsolatedImageDecoder (Linux): a host that decodes in isolation
    // ships it beside its own executable.
    .executable(name: "dex-decode-worker", targets: ["DexDecodeWorker"]),
    // The process that test-loads Tesseract language data before the host loads it (Linux):
    // a host that uses DexTextRecognition ships it beside its own executable.
    .executable(name: "dex-traineddata-probe", targets: ["DexTraineddataProbe"]),
  ],
  // Every Linux-only C dependency sits behind a trait, all three on by default. They only take
  // effect on Linux (an Apple platform never links them, whatever the traits say), so
  // `swift build --disable-default-traits` on Linux compiles exactly the code an Apple platform
  // compiles: the pure-Swift paths, the protocols, the doubles, the store and the client. A host
  // that wants none of them depends on DexKit with `traits: []`. In Swift code each trait is a
  // compilation condition, always tested together with `os(Linux)`.
  traits: [
    .trait(
      name: "SystemImageCodecs",
      description:
        "DexImaging's decoders and encoder over the system's libjpeg-turbo, libpng, libheif "
        + "and libwebp (Linux: ImageDownscaler, the default classifier initialiser, the "
        + "scanner's bundled-engine initialiser). Without it hosts bring their own "
        + "ImageDownscaling and ImageDecoding conformances."),
    .trait(
      name: "OneDNN",
      description:
        "The classifier's oneDNN backend (Linux; loads the system's libdnnl at run time, "
        + "Debian libdnnl-dev). Without it the classifier runs its portable Swift path."),
    .trait(
      name: "Tesseract",
      description:
        "DexTextRecognition's TesseractTextRecognizer over the system's Tesseract 5 and "
        + "Leptonica (Linux). Without it the module is empty and hosts bring their own "
        + "TextRecognizing conformance (for example over Vision)."),
    .default(enabledTraits: ["SystemImageCodecs", "OneDNN", "Tesseract"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    // `swift package generate-documentation` (Scripts/docs.sh); a command plugin, not linked.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // MARK: Model (no dependencies at all)
    // The WordNet noun lexicon behind the keyword matcher, with its licence.
    .target(name: "DexModel", resources: [.copy("Lexicon")]),

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
    // libheif 1.19 or later (HEIF / HEIC / AVIF, with its HEVC and AV1 decoders, libde265 and
    // dav1d, which the shim also asks for a stream's picture size) and libwebp + libwebpdemux
    // (WebP stills, animations' first frames) from the system, also only touched by the shim.
    .systemLibrary(
      name: "CHEIF",
      pkgConfig: "libheif",
      providers: [
        .apt(["libheif-dev", "libde265-dev", "libdav1d-dev"]),
        .brew(["libheif", "libde265", "dav1d"]),
      ]
    ),
    .systemLibrary(
      name: "CWebP",
      pkgConfig: "libwebpdemux",
      providers: [.apt(["libwebp-dev"]), .brew(["webp"])]
    ),
    // The one list of result codes every C shim returns (a header only, no library, no trait):
    // the shims include it, DexImaging's ShimStatus maps it to Swift.
    .target(name: "CDexStatus"),
    .target(
      name: "CDexImageShim",
      dependencies: [
        "CDexStatus",
        .target(name: "CJPEG", condition: imageCodecsOnLinux),
        .target(name: "CPNG", condition: imageCodecsOnLinux),
        .target(name: "CHEIF", condition: imageCodecsOnLinux),
        .target(name: "CWebP", condition: imageCodecsOnLinux),
      ],
      cSettings: [.define("NDEBUG"), imageCodecsDefine],
      // libwebp 1.5's pkg-config file names only libwebpdemux (libwebp is private to it);
      // libde265 and dav1d are asked for a coded stream's size (heif_probe.c).
      linkerSettings: ["m", "pthread", "webp", "de265", "dav1d"].map {
        .linkedLibrary($0, .when(platforms: [.linux], traits: ["SystemImageCodecs"]))
      }
    ),
    // The classifier network on oneDNN (libdnnl, OpenMP runtime; Debian libdnnl-dev): the only
    // C that calls it. It loads libdnnl at run time, so a host without it still starts.
    .target(
      name: "CDexNeuralShim",
      dependencies: ["CDexStatus"],
      cSettings: [.define("NDEBUG"), oneDNNDefine],
      linkerSettings: ["dl", "pthread"].map {
        .linkedLibrary($0, .when(platforms: [.linux], traits: ["OneDNN"]))
      }
    ),
    // The offline classifier's network (layers, weights loading, backends) is DexImaging's
    // `Classifier/Engine` folder: package-level types behind the public face (ImageClassifying,
    // ImageClassifier, ClassifierModel), which use its backend, precision and errors directly.
    .target(
      name: "DexImaging",
      dependencies: [
        "DexModel", "CDexStatus", logging,
        .target(name: "CDexImageShim", condition: imageCodecsOnLinux),
        .target(name: "CDexNeuralShim", condition: oneDNNOnLinux),
      ],
      // EfficientNet-Lite0 weights, manifest, ImageNet labels and their licences (classifier).
      resources: [.copy("Classifier/ClassifierResources")]
    ),
    // System libseccomp (Debian libseccomp-dev) and the decode worker's system-call filter
    // built on it: linked into dex-decode-worker only (Linux, trait SystemImageCodecs), never
    // into a host that links DexImaging.
    .systemLibrary(
      name: "CSeccomp",
      pkgConfig: "libseccomp",
      providers: [.apt(["libseccomp-dev"])]
    ),
    .target(
      name: "CDexWorkerSandbox",
      dependencies: [.target(name: "CSeccomp", condition: imageCodecsOnLinux)],
      cSettings: [.define("NDEBUG"), imageCodecsDefine]),
    // One decode per request in a process of its own, under the limits IsolatedImageDecoder
    // sets (address space, CPU time, no descriptors beyond its pipes) and a seccomp filter.
    .executableTarget(
      name: "DexDecodeWorker",
      dependencies: [
        "DexImaging",
        .target(name: "CDexImageShim", condition: imageCodecsOnLinux),
        .target(name: "CDexWorkerSandbox", condition: imageCodecsOnLinux),
      ]
    ),

    // MARK: Text recognition
    // Tesseract 5 and Leptonica from the system (pkg-config; Debian libtesseract-dev, language
    // data tesseract-ocr-eng), only touched by CDexTextShim through Tesseract's C API.
    .systemLibrary(
      name: "CTesseract",
      pkgConfig: "tesseract",
      providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"]), .brew(["tesseract"])]
    ),
    .target(
      name: "CDexTextShim",
      dependencies: ["CDexStatus", .target(name: "CTesseract", condition: tesseractOnLinux)],
      cSettings: [.define("NDEBUG"), tesseractDefine]),
    // The language-data test load, exec'd fresh by CDexTextShim (never a fork of the host).
    // Without the trait (or off Linux) it only says so and exits 69.
    .executableTarget(
      name: "DexTraineddataProbe",
      dependencies: [.target(name: "CTesseract", condition: tesseractOnLinux)],
      cSettings: [.define("NDEBUG"), tesseractDefine]),
    .target(
      name: "DexTextRecognition",
      dependencies: [
        "DexImaging", logging,
        .target(name: "CDexTextShim", condition: tesseractOnLinux),
      ]),

    // MARK: Cloud
    // The app's side: the signed client, token stores, the vision service.
    // PrivacyInfo.xcprivacy: the App Store privacy manifest (the token file's attributes).
    .target(
      name: "DexCloud", dependencies: ["DexModel", logging, crypto],
      resources: [.copy("PrivacyInfo.xcprivacy")]),
    // The backend's side of the same wire contract: verifier, session issuer, keyring, replay
    // cache, and the identification prompt a backend asks its model with. It signs and canonicalises through DexCloud's code, so the two cannot drift.
    .target(name: "DexCloudServer", dependencies: ["DexModel", "DexCloud", logging, crypto]),

    // MARK: Storage
    // PrivacyInfo.xcprivacy: the App Store privacy manifest (file metadata, free disk space).
    .target(
      name: "DexStorage", dependencies: ["DexModel", grdb, logging, crypto],
      resources: [.copy("PrivacyInfo.xcprivacy")]),

    // MARK: Glue
    .target(
      name: "DexKit", dependencies: ["DexModel", "DexImaging", "DexCloud", "DexStorage", logging]),

    // MARK: Test doubles for hosts
    // No test framework (neither Testing nor XCTest), so hosts use it from any of them.
    .target(
      name: "DexKitTesting",
      dependencies: ["DexModel", "DexImaging", "DexCloud", "DexStorage"],
      resources: [.copy("SamplePhotos")]),

    // MARK: Test support (this repository's own tests; not a product)
    // Log capture, child processes, a dedicated-thread executor.
    .target(name: "DexTestSupport", dependencies: [logging], path: "Tests/DexTestSupport"),
    // Swift Testing traits for the test targets (kept apart so that DexTestSupport links no
    // test framework).
    .target(
      name: "DexTestTraits", dependencies: ["DexTestSupport"], path: "Tests/DexTestTraits"),
    // A child process the DexStorage crash-safety tests SIGKILL mid-write.
    .executableTarget(
      name: "DexStoreCrashProbe",
      dependencies: ["DexStorage", "DexModel"],
      path: "Tests/DexStorageCrashProbe"
    ),

    // MARK: Tests
    .testTarget(
      name: "DexModelTests", dependencies: ["DexModel", "DexTestSupport", "DexTestTraits"],
      resources: [.copy("Fixtures")]),
    .testTarget(
      name: "DexImagingTests",
      dependencies: [
        "DexImaging", "DexModel", "DexTestSupport", "DexTestTraits",
        "DexDecodeWorker",
      ],
      resources: [.copy("Classifier/Fixtures"), .copy("Resources")]),
    .testTarget(
      name: "DexCloudTests", dependencies: ["DexCloud", "DexModel", "DexTestSupport", crypto]),
    .testTarget(
      name: "DexCloudServerTests",
      dependencies: ["DexCloudServer", "DexCloud", "DexModel", "DexTestSupport"]),
    .testTarget(
      name: "DexStorageTests",
      dependencies: ["DexStorage", "DexModel", "DexStoreCrashProbe", "DexTestSupport", grdb]),
    .testTarget(
      name: "DexTextRecognitionTests",
      dependencies: [
        "DexTextRecognition", "DexImaging", "DexTestSupport", "DexTestTraits", logging,
        "DexTraineddataProbe",
      ]),
    .testTarget(
      name: "DexKitTests",
      dependencies: ["DexKit", "DexKitTesting", "DexTestSupport", "DexTestTraits"]),
  ],
  swiftLanguageModes: [.v6]
)
