import DexModel
import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// The whole-distribution category decision and its calibration
/// (``ImageClassifier/guess(fromDistribution:calibration:hierarchy:minimumConfidence:)``).
@Suite(.offCooperativePool) struct ClassifierCalibrationTests {
  private let label = ClassifierGuessTests().label

  @Test func manySmallClassesOutweighTheTopFive() throws {
    var distribution = [label("tea cup", 0.30, .object), label("teapot", 0.10, .object)]
    distribution += (0..<60).map { label("animal \($0)", 0.01, .animal) }
    #expect(ImageClassifier.guess(from: Array(distribution.prefix(5)))?.category == .object)
    let guess = try #require(
      ImageClassifier.guess(fromDistribution: distribution, calibration: .identity))
    #expect(guess.category == .animal)
    #expect(abs(guess.confidence - 0.6) < 1e-9)
    #expect(guess.label == "animal 0")
    #expect(guess.labelConfidence == 0.01)
  }

  @Test func priorWeightsFavourCategoriesWithFewClasses() throws {
    let distribution = [label("vase", 0.55, .object), label("daisy", 0.45, .plant)]
    let plain = try #require(
      ImageClassifier.guess(fromDistribution: distribution, calibration: .identity))
    #expect(plain.category == .object)
    let fitted = try #require(ImageClassifier.guess(fromDistribution: distribution))
    #expect(fitted.category == .plant)
    #expect(fitted.label == "daisy")
    #expect(fitted.labelConfidence == 0.45)
    let expected = ClassifierCalibration.fitted.categoryProbabilities(distribution)[.plant]
    #expect(fitted.confidence == expected)
  }

  /// The two f32 fits name the views they were fitted on, and differ: the default averages the
  /// subject's square in on plain backgrounds, the other is the centre crop's alone.
  @Test func theFitsNameTheirViews() {
    #expect(ClassifierCalibration.fitted.views == .centreCropAndSubject)
    #expect(ClassifierCalibration.fittedCentreCrop.views == .centreCrop)
    #expect(ClassifierCalibration.fittedInt8.views == .centreCrop)
    #expect(ClassifierCalibration.fittedCentreCrop != .fitted)
    let distribution = [label("vase", 0.55, .object), label("daisy", 0.45, .plant)]
    let onePass = ClassifierCalibration.fittedCentreCrop.categoryProbabilities(distribution)
    #expect(abs(onePass.values.reduce(0, +) - 1) < 1e-12)
    #expect(
      onePass[.plant] != ClassifierCalibration.fitted.categoryProbabilities(distribution)[.plant])
  }

  @Test func temperatureSharpensAndProbabilitiesSumToOne() {
    let distribution = [label("a", 0.6, .animal), label("b", 0.4, .bird)]
    let sharp = ClassifierCalibration(logWeights: [:], temperature: 0.5)
      .categoryProbabilities(distribution)
    #expect(abs((sharp[.animal] ?? 0) - 0.36 / 0.52) < 1e-12)
    #expect(abs(sharp.values.reduce(0, +) - 1) < 1e-12)
    let fitted = ClassifierCalibration.fitted.categoryProbabilities(distribution)
    #expect(abs(fitted.values.reduce(0, +) - 1) < 1e-12)
    #expect(ClassifierCalibration.fitted.categoryProbabilities([]).isEmpty)
  }

  @Test func badParametersAreSanitised() {
    let calibration = ClassifierCalibration(
      logWeights: [.plant: .nan], temperature: 0, classTemperature: .nan)
    #expect(calibration.temperature == 1)
    #expect(calibration.classTemperature == 1)
    #expect(calibration.logWeights[.plant] == 0)
    #expect(ClassifierCalibration(logWeights: [:], temperature: -.infinity).temperature == 1)
    #expect(
      ClassifierCalibration(logWeights: [:], temperature: 1, classTemperature: -2)
        .classTemperature == 1)
  }

  /// A class temperature below 1 lets the most probable classes outweigh a long tail:
  /// `P(c) ∝ Σ p(i)^(1/t)`.
  @Test func classTemperatureFavoursTheMostProbableClasses() throws {
    var distribution = [label("tea cup", 0.30, .object), label("teapot", 0.10, .object)]
    distribution += (0..<60).map { label("animal \($0)", 0.01, .animal) }
    let sharp = ClassifierCalibration(logWeights: [:], temperature: 1, classTemperature: 0.5)
    let probabilities = sharp.categoryProbabilities(distribution)
    // Squares: object 0.09 + 0.01 = 0.1 against animal 60 · 0.0001 = 0.006.
    #expect(abs((probabilities[.object] ?? 0) - 0.1 / 0.106) < 1e-12)
    let guess = try #require(
      ImageClassifier.guess(fromDistribution: distribution, calibration: sharp))
    #expect(guess.category == .object)
    #expect(guess.label == "tea cup")
    #expect(guess.labelConfidence == 0.30)
  }

  /// A tiny class temperature raises probabilities to a huge power; the sum starts from the
  /// largest term, so nothing underflows to an empty or NaN result.
  @Test func aTinyClassTemperatureDoesNotUnderflow() {
    let distribution = [label("a", 1e-5, .animal), label("b", 2e-5, .bird), label("c", 0, .fish)]
    let probabilities = ClassifierCalibration(
      logWeights: [:], temperature: 1, classTemperature: 0.001
    ).categoryProbabilities(distribution)
    #expect(probabilities.keys.sorted { $0.rawValue < $1.rawValue } == [.animal, .bird])
    #expect((probabilities[.bird] ?? 0) > 0.999_999)
    #expect(probabilities.values.allSatisfy { $0.isFinite })
    #expect(abs(probabilities.values.reduce(0, +) - 1) < 1e-12)
  }

  @Test func emptyAndUnlikelyGiveNil() {
    #expect(ImageClassifier.guess(fromDistribution: []) == nil)
    let spread = DexCategory.allCases.map { label($0.rawValue, 1 / 12, $0) }
    #expect(ImageClassifier.guess(fromDistribution: spread, calibration: .identity) != nil)
    #expect(
      ImageClassifier.guess(
        fromDistribution: spread, calibration: .identity, minimumConfidence: 0.1)
        == nil)
  }

  @Test func theShortListRuleKeepsItsLabelProbability() throws {
    let guess = try #require(ImageClassifier.guess(from: [label("tree_frog", 0.7, .animal)]))
    #expect(guess.labelConfidence == 0.7)
  }

  /// The fitted calibration on the real-photo fixtures, from their reference logits (the centre
  /// crop's alone: this checks the calibration's arithmetic, not the views; the classifier adds
  /// the fish's subject square, see SubjectSquareTests): the values
  /// `Scripts/classifier-evalset.py fixtures` computes for the same logits with its numpy mirror,
  /// names included (a name from the WordNet tree when no class is sure: the cat, the butterfly;
  /// none at all for the flower, whose only plant class with any probability is daisy at 35 %,
  /// nor for the moss, daisy at 32 %).
  @Test(arguments: [
    ("cat", DexCategory.animal, 0.9899, 0.3982, "Domestic Cat"),
    ("dog", .animal, 0.9971, 0.9494, "Golden Retriever"),
    ("squirrel", .animal, 0.9884, 0.8906, "Fox Squirrel"),
    ("insect", .insect, 0.9585, 0.2864, "Butterfly"),
    ("flower", .plant, 0.9197, 0.3464, "Unidentified plant"),
    ("moss", .plant, 0.8807, 0.3242, "Unidentified plant"),
    ("fruit", .food, 0.9717, 0.7442, "Orange"),
    ("fish", .fish, 0.9935, 0.9335, "Goldfish"),
  ])
  func fixtureCalibration(
    name: String, category: DexCategory, confidence: Double, labelConfidence: Double,
    offlineName: String
  ) throws {
    let reference = try ClassifierFixtures.reference()
    let image = try #require(reference.images.first { $0.name == name })
    let model = try ClassifierFixtures.model(.portable)
    let distribution = model.rankedLabels(logits: image.logits, limit: .max)
    #expect(distribution.count == 1000)
    let guess = try #require(ImageClassifier.guess(fromDistribution: distribution))
    #expect(guess.category == category)
    #expect(abs(guess.confidence - confidence) < 1e-3, "\(name): \(guess.confidence)")
    #expect(abs((guess.labelConfidence ?? -1) - labelConfidence) < 1e-3)
    #expect(guess.offlineName == offlineName)
    #expect(guess.name == (offlineName == category.unidentifiedName ? "" : offlineName))
  }
}
