import DexTestTraits
import Foundation
import Testing

@testable import DexClassifierEngine
@testable import DexImaging

/// The Swift network against the independent numpy reference (`Scripts/classifier-reference.py`)
/// on real photos, and the photos' coarse categories.
///
/// Off the cooperative pool: each case runs a debug-built forward pass (about a second)
/// synchronously, and on a 2-core machine a few of them would starve the suites that wait on
/// timers and sockets (a CI run failed a clock-skew check that way).
@Suite(.offCooperativePool) struct ReferenceLogitsTests {
  /// One forward pass per photo and engine (oneDNN where built in, the portable path): each
  /// photo is checked for logits, top-5 and category in the same test.
  @Test(
    arguments: ["cat", "dog", "squirrel", "insect", "flower", "moss", "fruit", "fish"],
    ClassifierFixtures.Engine.available)
  func photoMatchesReference(name: String, engine: ClassifierFixtures.Engine) async throws {
    let reference = try ClassifierFixtures.reference()
    let expected = try #require(reference.images.first { $0.name == name })
    let model = try ClassifierFixtures.model(engine)
    #expect(model.backend == (engine == .oneDNN ? .oneDNN : .portable))
    let image = try ClassifierFixtures.image(name)
    #expect(image.width == 256 && image.height == 256)

    let logits = try model.logits(for: image)
    #expect(logits.count == 1000)
    let maxDifference = zip(logits, expected.logits).map { abs($0 - $1) }.max() ?? .infinity
    // 32-bit floats (either backend) stay within 1e-3 of the float64 reference.
    #expect(maxDifference < 1e-3, "largest logit difference \(maxDifference)")
    let top5 = logits.indices.sorted { logits[$0] > logits[$1] }.prefix(5)
    #expect(Array(top5) == expected.top5)

    let ranked = model.rankedLabels(logits: logits, limit: 5)
    #expect(ranked.map(\.label) == expected.top5Labels)
    let guess = try #require(ImageClassifier.guess(from: ranked, minimumConfidence: 0.1))
    #expect(guess.category.rawValue == expected.category, "\(name) guessed \(guess)")
  }
}
