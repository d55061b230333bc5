import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

#if os(Linux) && OneDNN
  import CDexNeuralShim
#endif

/// The oneDNN backend against the portable float path (its reference) and the float64
/// reference logits, under concurrent load on one and two threads, and the fallback to the
/// portable path when oneDNN fails to build the graph.
@Suite(.offCooperativePool) struct ClassifierBackendTests {
  /// The largest difference allowed between a oneDNN logit and the portable float path's
  /// (logits span about −10…20): both compute in 32-bit floats, in different orders (oneDNN
  /// blocks its sums and uses fused multiply-adds), so they differ by rounding only.
  static let logitTolerance: Float = 1e-4

  static let photos = ["cat", "dog", "squirrel", "insect", "flower", "moss", "fruit", "fish"]

  /// Automatic picks oneDNN where it is built in, with the processor's instruction set on the
  /// model; forcing either side gives that side.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func automaticPicksOneDNN() throws {
    let automatic = try ClassifierModel.bundled()
    #expect(automatic.backend == .oneDNN)
    #expect(automatic.network.fallbackReason == nil)
    let isa = try #require(automatic.instructionSet)
    #expect(!isa.isEmpty && isa != "other", "\(isa)")
    #expect(try ClassifierModel.bundled(backend: .oneDNN).backend == .oneDNN)
    let portable = try ClassifierModel.bundled(backend: .portable)
    #expect(portable.backend == .portable)
    #expect(portable.instructionSet == nil)
  }

  @Test(.enabled(if: !EfficientNetLite0.isOneDNNBuiltIn))
  func portableWhereOneDNNIsNotBuiltIn() throws {
    #expect(try ClassifierModel.bundled().backend == .portable)
    let forced = try ClassifierFixtures.loadModel(backend: .oneDNN)
    #expect(forced.backend == .portable)
    #expect(forced.network.fallbackReason != nil)
  }

  /// oneDNN's logits equal the portable float path's within ``logitTolerance``, with the same
  /// top-5, on every fixture photo.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn), arguments: photos)
  func oneDNNMatchesPortable(name: String) throws {
    let fast = try ClassifierFixtures.model(.oneDNN)
    let logits = try fast.logits(for: ClassifierFixtures.image(name))
    let oracle = try ClassifierFixtures.portableLogits(name)
    #expect(logits.count == oracle.count)
    let difference = zip(logits, oracle).map { abs($0 - $1) }.max() ?? .infinity
    #expect(difference < Self.logitTolerance, "\(name): largest difference \(difference)")
    #expect(Self.top5(logits) == Self.top5(oracle))
  }

  #if os(Linux) && OneDNN
    /// Every layer runs an optimised oneDNN kernel on one and two threads: none fell to the
    /// reference kernels (`ref:any`, 30 times slower), which a layout oneDNN cannot block (a
    /// depthwise layer on a plain source) would bring.
    @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
    func noLayerRunsReferenceKernels() throws {
      let model = try ClassifierFixtures.loadModel(backend: .oneDNN)
      let input = model.preprocessor.networkInput(from: try ClassifierFixtures.image("cat"))
      _ = try model.logits(forNetworkInput: input, threads: 2)
      guard case .oneDNN(let network) = model.network.computeForTests else {
        Issue.record("not on oneDNN")
        return
      }
      for threads in [1, min(2, OneDNNNetwork.threadLimit)] {
        let kernels = try #require(network.implementations(threads: threads))
        let names = kernels.split(separator: ",")
        // Stem, 16 blocks of 2 or 3 convolutions, head, pooling, classifier, and any reorders.
        #expect(names.count >= 50, "\(kernels)")
        #expect(!names.contains { $0.hasPrefix("ref") }, "\(threads) threads: \(kernels)")
      }
    }
  #endif

  /// Two inferences on one thread each and one on two threads, in flight at once (several
  /// rounds of them), each give the float64 reference's top-5 and logits within 1e-3 (f32), or
  /// the int8 graph's own one-at-a-time logits within 1e-3 and the reference's best class.
  @Test(
    .enabled(if: EfficientNetLite0.isOneDNNBuiltIn),
    arguments: [ClassifierFixtures.Engine.oneDNN, .oneDNNInt8])
  func concurrentInferencesOnOneAndTwoThreadsAreCorrect(
    engine: ClassifierFixtures.Engine
  ) async throws {
    let model = try ClassifierFixtures.model(engine)
    let int8 = model.precision == .int8
    let reference = try ClassifierFixtures.reference()
    let jobs = [("cat", 1), ("squirrel", 1), ("moss", 2)]
    var inputs: [String: [Float]] = [:]
    for (name, _) in jobs {
      inputs[name] = model.preprocessor.networkInput(from: try ClassifierFixtures.image(name))
    }
    let frozen = inputs
    let results = try await withThrowingTaskGroup(of: (String, Int, [Float]).self) { group in
      for _ in 0..<4 {
        for (name, threads) in jobs {
          let input = frozen[name] ?? []
          group.addTask {
            (name, threads, try model.logits(forNetworkInput: input, threads: threads))
          }
        }
      }
      var results: [(String, Int, [Float])] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(results.count == 12)
    for (name, threads, logits) in results {
      let expected = try #require(reference.images.first { $0.name == name })
      if int8 {
        let alone = try model.logits(forNetworkInput: frozen[name] ?? [])
        let difference = zip(logits, alone).map { abs($0 - $1) }.max() ?? .infinity
        #expect(
          difference < 1e-3, "\(name) on \(threads) threads: largest difference \(difference)")
        #expect(Self.top5(logits).first == expected.top5.first, "\(name) on \(threads) threads")
        continue
      }
      let difference = zip(logits, expected.logits).map { abs($0 - $1) }.max() ?? .infinity
      #expect(difference < 1e-3, "\(name) on \(threads) threads: largest difference \(difference)")
      #expect(Self.top5(logits) == expected.top5, "\(name) on \(threads) threads")
    }
  }

  /// A graph oneDNN refuses (a stride of zero) falls back to the portable path with a log line
  /// naming the failure, and the model still classifies.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func failureFallsBackToPortable() throws {
    let capture = LogCapture()
    let model = try ClassifierFixtures.loadModel(
      backend: .oneDNN, fault: .graph, logger: capture.logger())
    #expect(model.backend == .portable)
    let reason = try #require(model.network.fallbackReason)
    #expect(reason.contains("oneDNN graph"), "\(reason)")
    let notices = capture.lines.filter { $0.hasPrefix("[notice]") }
    #expect(notices.count == 1)
    #expect(notices.first?.contains("oneDNN graph") == true, "\(notices)")
    #expect(capture.lines.contains { $0.hasPrefix("[debug]") && $0.contains("backend=portable") })
    let oracle = try ClassifierFixtures.portableLogits("cat")
    #expect(try model.logits(for: ClassifierFixtures.image("cat")) == oracle)
  }

  // Its count of fused blocks is ClassifierFusionTests' (oneDNN only).
  #if os(Linux) && OneDNN
    /// The choice (backend, instruction set, precision and the views of its calibration) is
    /// logged once, at debug level, when the model loads.
    @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
    func choiceIsLoggedOnceAtDebug() throws {
      let capture = LogCapture()
      let model = try ClassifierFixtures.loadModel(backend: .oneDNN, logger: capture.logger())
      _ = try model.logits(for: ClassifierFixtures.image("dog"))
      _ = try model.logits(for: ClassifierFixtures.image("cat"), threads: 2)
      let isa = try #require(model.instructionSet)
      // Fused where oneDNN keeps NHWC (AVX-512): the blocks whose expanded activation (the
      // stem's output for the first) is larger than the L2, four with a 1 MiB one.
      let expanded =
        [1_605_632, 4_816_896, 1_806_336, 1_806_336, 752_640, 752_640]
        + Array(repeating: 376_320, count: 3) + Array(repeating: 526_848, count: 3)
        + Array(repeating: 225_792, count: 4)
      let fused =
        isa.hasPrefix("avx512")
        ? expanded.filter { $0 > ClassifierFusionTests.level2CacheBytes }.count : 0
      #expect(
        capture.lines == [
          "[debug] test: classifier backend backend=oneDNN fused_blocks=\(fused) isa=\(isa) precision=float32 views=centreCropAndSubject"
        ])
    }
  #endif

  /// More two-thread inferences in flight than the shim keeps contexts for (two per plan): the
  /// others' contexts, and their helper threads, end as soon as each returns, here before a
  /// helper has first run (the helpers start 30 ms late, as the scheduler may start them).
  /// Every inference returns (none waits for a helper that missed its quit), with the
  /// reference's logits.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func surplusContextsEndWithTheirHelpers() throws {
    #if os(Linux) && OneDNN
      dexnn_delay_helper_start_for_testing(30_000)
      defer { dexnn_delay_helper_start_for_testing(0) }
    #endif
    let model = try ClassifierFixtures.loadModel(backend: .oneDNN)
    let input = model.preprocessor.networkInput(from: try ClassifierFixtures.image("cat"))
    let expected = try #require(
      try ClassifierFixtures.reference().images.first { $0.name == "cat" })
    let results = Locked<[[Float]]>([])
    let group = DispatchGroup()
    for _ in 0..<3 {
      for _ in 0..<8 {
        group.enter()
        Thread.detachNewThread {
          defer { group.leave() }
          if let logits = try? model.logits(forNetworkInput: input, threads: 2) {
            results.withLock { $0.append(logits) }
          }
        }
      }
      // A context that waited for a helper that never woke would never return.
      try #require(group.wait(timeout: .now() + 30) == .success, "an inference did not return")
    }
    let all = results.withLock { $0 }
    #expect(all.count == 24)
    for logits in all {
      let difference = zip(logits, expected.logits).map { abs($0 - $1) }.max() ?? .infinity
      #expect(difference < 1e-3, "largest difference \(difference)")
    }
  }

  #if os(Linux) && OneDNN
    /// Plans for three to six threads split each layer more ways than two, and unevenly (a 7-row
    /// layer in 2+2+3 rows, 1152 channels in thirds, 112 in fifths of 22 or 23), beyond the cores
    /// of the machine (the cap is lifted for the test): every split gives the float64 reference's top-5 and
    /// logits within 1e-3 (f32), or the one-thread int8 logits within 1e-3.
    @Test(
      .enabled(if: EfficientNetLite0.isOneDNNBuiltIn),
      arguments: [ClassifierFixtures.Engine.oneDNN, .oneDNNInt8])
    func everyBandSplitMatchesTheReference(engine: ClassifierFixtures.Engine) throws {
      let model = try ClassifierFixtures.model(engine)
      guard case .oneDNN(let network) = model.network.computeForTests else {
        Issue.record("not on oneDNN")
        return
      }
      let reference = try ClassifierFixtures.reference()
      for name in ["cat", "moss"] {
        let input = model.preprocessor.networkInput(from: try ClassifierFixtures.image(name))
        let expected = try #require(reference.images.first { $0.name == name })
        let alone = try network.logits(input, threads: 1)
        for threads in 3...6 {
          let logits = try network.logits(input, threads: threads, uncapped: true)
          let oracle = model.precision == .int8 ? alone : expected.logits
          let difference = zip(logits, oracle).map { abs($0 - $1) }.max() ?? .infinity
          #expect(
            difference < 1e-3, "\(name) on \(threads) threads: largest difference \(difference)")
          if model.precision == .float32 {
            #expect(Self.top5(logits) == expected.top5, "\(name) on \(threads) threads")
          }
        }
        let kernels = try #require(network.implementations(threads: 6))
        #expect(!kernels.split(separator: ",").contains { $0.hasPrefix("ref") }, "\(kernels)")
      }
    }
  #endif

  /// libdnnl that cannot be loaded is a typed error naming the library where the engine is
  /// made directly; a model falls back to the portable path with a notice naming it, and still
  /// gives the portable path's logits.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func missingLibraryIsATypedErrorOrALoggedFallback() throws {
    #if os(Linux) && OneDNN
      let weights = try ClassifierFixtures.weights()
      #expect {
        try OneDNNNetwork(
          architecture: weights.architecture, store: weights.store, ranges: nil,
          precision: .float32, fault: .missingLibrary)
      } throws: { error in
        guard case .backendFailed(let message) = error as? ClassifierError else { return false }
        return message.contains(OneDNNNetwork.missingLibrary)
      }
    #endif
    let capture = LogCapture()
    let model = try ClassifierFixtures.loadModel(
      backend: .automatic, fault: .missingLibrary, logger: capture.logger())
    #expect(model.backend == .portable)
    #expect(model.instructionSet == nil)
    let notices = capture.lines.filter { $0.hasPrefix("[notice]") }
    #expect(notices.count == 1)
    #expect(notices.first?.contains("libdnnl-dexkit-missing.so.2") == true, "\(notices)")
    let oracle = try ClassifierFixtures.portableLogits("fish")
    #expect(try model.logits(for: ClassifierFixtures.image("fish")) == oracle)
  }

  private static func top5(_ logits: [Float]) -> [Int] {
    Array(logits.indices.sorted { logits[$0] > logits[$1] }.prefix(5))
  }
}
