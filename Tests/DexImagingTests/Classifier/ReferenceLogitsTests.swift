import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// The Swift network against the independent numpy reference (`Scripts/classifier-reference.py`)
/// on real photos, and the photos' coarse categories: oneDNN and the portable path in f32, and
/// oneDNN's int8 (the default where the processor has VNNI).
///
/// Off the cooperative pool: each case runs a debug-built forward pass (about a second)
/// synchronously, and on a 2-core machine a few of them would starve the suites that wait on
/// timers and sockets (a CI run failed a clock-skew check that way).
@Suite(.offCooperativePool) struct ReferenceLogitsTests {
  /// The largest difference allowed between an int8 logit and the float64 reference's (logits
  /// span about −10…20; the fixtures' largest is 0.46, see the README of
  /// Benchmarks/DexImaging-classifier).
  static let int8Tolerance: Float = 0.75

  /// One forward pass per photo and engine: each photo is checked for logits, top-5 and
  /// category in the same test (f32), or for logits within the int8 tolerance and the guess
  /// users see (int8, which reorders near ties in the top-5 that nobody is shown): its own
  /// calibration's category and name on the int8 logits are the float calibration's on the
  /// reference logits.
  @Test(
    arguments: ["cat", "dog", "squirrel", "insect", "flower", "moss", "fruit", "fish"],
    ClassifierFixtures.Engine.available)
  func photoMatchesReference(name: String, engine: ClassifierFixtures.Engine) async throws {
    let reference = try ClassifierFixtures.reference()
    let expected = try #require(reference.images.first { $0.name == name })
    let model = try ClassifierFixtures.model(engine)
    #expect(model.backend == (engine == .portable ? .portable : .oneDNN))
    let int8 = engine == .oneDNNInt8 && EfficientNetLite0.hasInt8Kernels
    #expect(model.precision == (int8 ? .int8 : .float32))
    let image = try ClassifierFixtures.image(name)
    #expect(image.width == 256 && image.height == 256)

    // The portable path's pass is shared with the tests that compare oneDNN against it.
    let logits =
      engine == .portable
      ? try ClassifierFixtures.portableLogits(name) : try model.logits(for: image)
    #expect(logits.count == 1000)
    let maxDifference = zip(logits, expected.logits).map { abs($0 - $1) }.max() ?? .infinity
    // 32-bit floats (either backend) stay within 1e-3 of the float64 reference.
    #expect(
      maxDifference < (int8 ? Self.int8Tolerance : 1e-3),
      "\(model.precision): largest logit difference \(maxDifference)")
    let top5 = logits.indices.sorted { logits[$0] > logits[$1] }.prefix(5)
    if int8 {
      #expect(model.calibration == .fittedInt8)
      let floatGuess = try #require(
        ImageClassifier.guess(
          fromDistribution: model.rankedLabels(logits: expected.logits, limit: .max),
          calibration: .fitted))
      let guess = try #require(
        ImageClassifier.guess(
          fromDistribution: model.rankedLabels(logits: logits, limit: .max),
          calibration: model.calibration))
      #expect(guess.category.rawValue == expected.category, "\(name) guessed \(guess)")
      #expect(guess.category == floatGuess.category, "\(name): \(guess) against \(floatGuess)")
      #expect(
        guess.offlineName == floatGuess.offlineName, "\(name): \(guess) against \(floatGuess)")
      return
    }
    #expect(Array(top5) == expected.top5)

    let ranked = model.rankedLabels(logits: logits, limit: 5)
    #expect(ranked.map(\.label) == expected.top5Labels)
    let guess = try #require(ImageClassifier.guess(from: ranked, minimumConfidence: 0.1))
    #expect(guess.category.rawValue == expected.category, "\(name) guessed \(guess)")
  }
}
