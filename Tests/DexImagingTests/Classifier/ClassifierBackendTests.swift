import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexClassifierEngine
@testable import DexImaging

/// The XNNPACK backend against the portable float path (its oracle), under concurrent load, and
/// the fallback to the portable path when XNNPACK fails to load.
@Suite(.offCooperativePool) struct ClassifierBackendTests {
  /// The largest difference allowed between an XNNPACK logit and the portable float path's
  /// (logits span about −10…20): both compute in 32-bit floats, in different orders (XNNPACK
  /// uses fused multiply-adds and its own blocking), so they differ by rounding only, at most
  /// 1.3e-5 on these photos.
  static let logitTolerance: Float = 1e-4

  static let photos = ["cat", "dog", "bird", "insect", "flower", "mushroom", "fruit", "fish"]

  /// Automatic picks XNNPACK exactly where it is built in and preferred for this processor;
  /// forcing either side gives that side.
  @Test(.enabled(if: EfficientNetLite0.isXNNPACKBuiltIn))
  func automaticFollowsTheProcessorRule() throws {
    let expected: ClassifierBackend = EfficientNetLite0.isXNNPACKPreferred ? .xnnpack : .portable
    #expect(try ClassifierModel.bundled().backend == expected)
    #expect(try ClassifierModel.bundled(backend: .xnnpack).backend == .xnnpack)
    #expect(try ClassifierModel.bundled(backend: .portable).backend == .portable)
    #expect(try ClassifierModel.bundled().network.fallbackReason == nil)
    #expect(try ClassifierModel.bundled(backend: .xnnpack).network.fallbackReason == nil)
  }

  @Test(.enabled(if: !EfficientNetLite0.isXNNPACKBuiltIn))
  func portableWhereXNNPACKIsNotBuiltIn() throws {
    #expect(try ClassifierModel.bundled().backend == .portable)
    let forced = try ClassifierFixtures.loadModel(backend: .xnnpack)
    #expect(forced.backend == .portable)
    #expect(forced.network.fallbackReason != nil)
  }

  /// XNNPACK's logits equal the portable float path's within ``logitTolerance``, with the same
  /// top-5, on every fixture photo.
  @Test(.enabled(if: EfficientNetLite0.isXNNPACKBuiltIn), arguments: photos)
  func xnnpackMatchesPortable(name: String) throws {
    let xnnpack = try ClassifierFixtures.model(.xnnpack)
    let portable = try ClassifierFixtures.model(.portableFloat32)
    #expect(xnnpack.backend == .xnnpack)
    #expect(portable.backend == .portable)
    let image = try ClassifierFixtures.image(name)
    let fast = try xnnpack.logits(for: image)
    let oracle = try portable.logits(for: image)
    #expect(fast.count == oracle.count)
    let difference = zip(fast, oracle).map { abs($0 - $1) }.max() ?? .infinity
    #expect(difference < Self.logitTolerance, "\(name): largest difference \(difference)")
    #expect(Self.top5(fast) == Self.top5(oracle))
  }

  /// Many classifications in flight at once, on one and two threads each, give what one at a
  /// time gives: no two share a runtime.
  @Test(.enabled(if: EfficientNetLite0.isXNNPACKBuiltIn))
  func concurrentClassificationsAgree() async throws {
    let model = try ClassifierFixtures.model(.xnnpack)
    let names = ["cat", "bird", "mushroom"]
    let inputs = try names.map {
      model.preprocessor.networkInput(from: try ClassifierFixtures.image($0))
    }
    var expected: [[Float]] = []
    for input in inputs { expected.append(try model.logits(forNetworkInput: input)) }
    let results = try await withThrowingTaskGroup(of: (Int, Int, [Float]).self) { group in
      for job in 0..<24 {
        let (photo, threads) = (job % inputs.count, 1 + job % 2)
        let input = inputs[photo]
        group.addTask { (job, photo, try model.logits(forNetworkInput: input, threads: threads)) }
      }
      var results: [(Int, Int, [Float])] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(results.count == 24)
    for (job, photo, logits) in results {
      let difference = zip(logits, expected[photo]).map { abs($0 - $1) }.max() ?? .infinity
      // One thread runs exactly the same arithmetic as the sequential pass; two may split
      // sums differently.
      #expect(
        job % 2 == 1 ? difference < Self.logitTolerance : logits == expected[photo],
        "job \(job) (\(names[photo])): largest difference \(difference)")
      #expect(Self.top5(logits) == Self.top5(expected[photo]))
    }
  }

  /// A forced XNNPACK failure (at initialisation, or a node XNNPACK rejects) falls back to the
  /// portable path with a log line naming the failure, and the model still classifies.
  @Test(
    .enabled(if: EfficientNetLite0.isXNNPACKBuiltIn),
    arguments: [
      (EfficientNetLite0.XNNPACKFault.initialization, "xnn_initialize"),
      (.graph, "xnn_define_depthwise_convolution_2d"),
    ])
  func failureFallsBackToPortable(fault: EfficientNetLite0.XNNPACKFault, step: String) throws {
    let capture = LogCapture()
    let model = try ClassifierFixtures.loadModel(
      backend: .xnnpack, xnnpackFault: fault, logger: capture.logger())
    #expect(model.backend == .portable)
    let reason = try #require(model.network.fallbackReason)
    #expect(reason.contains(step), "\(reason)")
    let notices = capture.lines.filter { $0.hasPrefix("[notice]") }
    #expect(notices.count == 1)
    #expect(notices.first?.contains(step) == true, "\(notices)")
    #expect(capture.lines.contains { $0.hasPrefix("[debug]") && $0.contains("backend=portable") })
    let image = try ClassifierFixtures.image("cat")
    let oracle = try ClassifierFixtures.model(.portableFloat32).logits(for: image)
    #expect(try model.logits(for: image) == oracle)
  }

  /// The choice is logged once, at debug level, when the model loads.
  @Test(.enabled(if: EfficientNetLite0.isXNNPACKBuiltIn))
  func choiceIsLoggedOnceAtDebug() throws {
    let capture = LogCapture()
    let model = try ClassifierFixtures.loadModel(backend: .xnnpack, logger: capture.logger())
    _ = try model.logits(for: ClassifierFixtures.image("dog"))
    _ = try model.logits(for: ClassifierFixtures.image("cat"), threads: 2)
    #expect(capture.lines == ["[debug] test: classifier backend backend=xnnpack"])
  }

  private static func top5(_ logits: [Float]) -> [Int] {
    Array(logits.indices.sorted { logits[$0] > logits[$1] }.prefix(5))
  }
}
