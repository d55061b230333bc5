import DexModel
import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// Folding ranked labels into one guess.
@Suite(.offCooperativePool) struct ClassifierGuessTests {
  func label(_ name: String, _ confidence: Double, _ category: DexCategory) -> ClassificationLabel {
    ClassificationLabel(identifier: name, label: name, confidence: confidence, category: category)
  }

  @Test func summedCategoryBeatsTopOne() throws {
    let ranked = [
      label("tea cup", 0.30, .object), label("tabby cat", 0.25, .animal),
      label("tiger cat", 0.20, .animal), label("Egyptian Mau", 0.10, .animal),
    ]
    let guess = try #require(ImageClassifier.guess(from: ranked))
    #expect(guess.category == .animal)
    #expect(guess.label == "tabby cat")
    #expect(abs(guess.confidence - 0.55) < 1e-9)
  }

  @Test func tiesGoToTheBetterRankedCategory() throws {
    let ranked = [label("daisy", 0.2, .plant), label("bee", 0.2, .insect)]
    #expect(ImageClassifier.guess(from: ranked)?.category == .plant)
  }

  @Test func lowConfidenceAndEmptyGiveNil() {
    #expect(ImageClassifier.guess(from: []) == nil)
    #expect(ImageClassifier.guess(from: [label("x", 0.05, .object)], minimumConfidence: 0.1) == nil)
    #expect(ImageClassifier.guess(from: [label("x", 0.15, .object)], minimumConfidence: 0.1) != nil)
  }

  @Test func displayLabelIsCleaned() throws {
    let guess = try #require(ImageClassifier.guess(from: [label("tree_frog  ", 0.9, .animal)]))
    #expect(guess.label == "tree frog")
    #expect(ClassifierLabelTable.cleanedLabel(" great   white_shark ") == "great white shark")
  }

  @Test func confidenceIsClamped() {
    #expect(label("x", 3, .object).confidence == 1)
    #expect(label("x", -.infinity, .object).confidence == 0)
    #expect(label("x", .nan, .object).confidence == 0)
  }

  @Test func defaultRankedLabelsWrapsTheGuess() async {
    struct Fixed: ImageClassifying {
      func classify(imageData: Data) async -> LocalGuess? {
        imageData.isEmpty ? nil : LocalGuess(category: .plant, label: "fern", confidence: 0.7)
      }
    }
    let ranked = await Fixed().rankedLabels(imageData: Data([1]), limit: 3)
    #expect(
      ranked == [
        ClassificationLabel(identifier: "fern", label: "fern", confidence: 0.7, category: .plant)
      ])
    #expect(await Fixed().rankedLabels(imageData: Data(), limit: 3).isEmpty)
    #expect(await Fixed().rankedLabels(imageData: Data([1]), limit: 0).isEmpty)
  }
}
