import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

// The oneDNN backend exists on Linux with the trait OneDNN only.
#if os(Linux) && OneDNN
  /// The fused blocks of the oneDNN backend (band by band through a tile) in every geometry: one
  /// output row per band, a few, one band per chain; on one thread and split into two and three
  /// chains; every block fused or none. Each gives the float64 reference's logits within 1e-3 and
  /// its top-5, so a band that reads a wrong row, a copy that moves the wrong rows or a chain
  /// that overwrites another's input shows up as a wrong logit.
  @Suite(.offCooperativePool) struct ClassifierFusionTests {
    /// A network with its own fusion geometry (the model's keeps the host's default).
    static func network(_ fusion: OneDNNNetwork.Fusion) throws -> OneDNNNetwork {
      let weights = try ClassifierFixtures.weights()
      return try OneDNNNetwork(
        architecture: weights.architecture, store: weights.store, ranges: nil, precision: .float32,
        fault: nil, fusion: fusion)
    }

    /// Every block fused (from 1 byte on), with tiles of one row (1 byte: the tile holds the
    /// depthwise kernel's rows only), of 40 000 bytes (a band of a few rows, and uneven last
    /// bands), and of 1 GiB (one band per chain); and none fused.
    static let geometries: [(name: String, fusion: OneDNNNetwork.Fusion, fused: Bool)] = [
      ("one-row bands", .init(tileBytes: 1, fromBytes: 1), true),
      ("40 000-byte tiles", .init(tileBytes: 40_000, fromBytes: 1), true),
      ("one band per chain", .init(tileBytes: 1 << 30, fromBytes: 1), true),
      ("nothing fused", .init(tileBytes: 0, fromBytes: Int.max), false),
      // Every block fused, each then refused (as a band on oneDNN's reference kernel would be)
      // and built again layer by layer: the dropped steps leave nothing behind.
      ("bands refused", .init(tileBytes: 1, fromBytes: 1, rejectsBands: true), false),
    ]

    @Test(
      .enabled(if: EfficientNetLite0.isOneDNNBuiltIn),
      arguments: geometries.indices)
    func everyGeometryMatchesTheReference(geometry: Int) throws {
      let (label, fusion, fused) = Self.geometries[geometry]
      let network = try Self.network(fusion)
      let reference = try ClassifierFixtures.reference()
      let preprocessor = ImagePreprocessor()
      for name in ["cat", "moss"] {
        let input = preprocessor.networkInput(from: try ClassifierFixtures.image(name))
        let expected = try #require(reference.images.first { $0.name == name })
        for threads in 1...3 {
          let logits = try network.logits(input, threads: threads, uncapped: true)
          let difference = zip(logits, expected.logits).map { abs($0 - $1) }.max() ?? .infinity
          #expect(
            difference < 1e-3,
            "\(label), \(name), \(threads) threads: largest difference \(difference)")
          #expect(
            Array(logits.indices.sorted { logits[$0] > logits[$1] }.prefix(5)) == expected.top5,
            "\(label), \(name), \(threads) threads")
        }
      }
      for threads in 1...3 {
        let steps = try #require(network.implementations(threads: threads)).split(separator: ",")
        #expect(
          steps.contains("copy") == (fused && Self.keepsNHWC(network)),
          "\(label), \(threads) threads"
        )
        #expect(!steps.contains { $0.hasPrefix("ref") }, "\(label), \(threads) threads")
      }
    }

    /// On this host's own geometry the blocks larger than its L2 run fused where oneDNN keeps
    /// NHWC: Lite0's 112×112 and 56×56 expanded activations (1.6 to 4.8 MB) outgrow any L2 the
    /// machines measured here have (1 MiB and less).
    @Test(
      .enabled(
        if: EfficientNetLite0.isOneDNNBuiltIn && ClassifierFusionTests.level2CacheBytes < 1_600_000)
    )
    func largeBlocksRunFusedOnThisHost() throws {
      let model = try ClassifierFixtures.loadModel(backend: .oneDNN)
      guard case .oneDNN(let network) = model.network.computeForTests else {
        Issue.record("not on oneDNN")
        return
      }
      let steps = try #require(network.implementations(threads: 1)).split(separator: ",")
      #expect(steps.contains("copy") == Self.keepsNHWC(network), "\(steps)")
    }

    /// Whether oneDNN keeps this processor's activations in NHWC, where blocks can be fused: its
    /// AVX-512 kernels do; its AVX2 ones (an AVX2-only host, or `ONEDNN_MAX_CPU_ISA=AVX2`) want
    /// blocked layouts, and nothing is fused there.
    static func keepsNHWC(_ network: OneDNNNetwork) -> Bool {
      network.instructionSet.hasPrefix("avx512")
    }

    /// The L2 cache's size as the C library reports it (1 MiB where it does not).
    static var level2CacheBytes: Int {
      #if os(Linux)
        let bytes = sysconf(Int32(_SC_LEVEL2_CACHE_SIZE))
        return bytes > 0 ? bytes : 1 << 20
      #else
        return 1 << 20
      #endif
    }
  }
#endif
