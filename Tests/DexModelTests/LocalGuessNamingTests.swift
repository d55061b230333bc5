import Foundation
import Testing

@testable import DexModel

/// How an offline entry is named from the on-device guess (``LocalGuess/offlineName``).
@Suite struct LocalGuessNamingTests {
  @Test func theLabelNamesTheEntryOnlyFromTheThresholdOn() {
    #expect(LocalGuess.namingThreshold == 0.6)
    let likely = LocalGuess(
      category: .animal, label: "tree frog", confidence: 0.9, labelConfidence: 0.6)
    #expect(likely.offlineName == "Tree Frog")
    let unlikely = LocalGuess(
      category: .animal, label: "tree frog", confidence: 0.9, labelConfidence: 0.59)
    #expect(unlikely.offlineName == "Unidentified animal")
    // Without a label probability the category's stands in (hosts' own classifiers).
    #expect(
      LocalGuess(category: .animal, label: "tree frog", confidence: 0.6).offlineName == "Tree Frog")
    #expect(
      LocalGuess(category: .animal, label: "tree frog", confidence: 0.59).offlineName
        == "Unidentified animal")
    #expect(
      LocalGuess(category: .animal, label: "", confidence: 0.9).offlineName == "Unidentified animal"
    )
  }

  /// A classifier's own name (a group of classes it is sure of) wins over the label rule; an
  /// empty name says it is sure of nothing below the category.
  @Test func theClassifiersNameWinsWhenTheCategoryIsLikely() {
    let cat = LocalGuess(
      category: .animal, label: "Egyptian Mau", confidence: 0.99, labelConfidence: 0.37,
      name: "Domestic Cat", nameConfidence: 0.91)
    #expect(!cat.isLabelLikely)
    #expect(cat.offlineName == "Domestic Cat")
    let nothing = LocalGuess(
      category: .animal, label: "tree frog", confidence: 0.9, labelConfidence: 0.8, name: "")
    #expect(nothing.offlineName == "Unidentified animal", "the classifier's own rule decided")
    let unsure = LocalGuess(
      category: .plant, label: "daisy", confidence: 0.4, labelConfidence: 0.3, name: "Flower")
    #expect(unsure.offlineName == "Not sure — maybe a plant")
    #expect(
      LocalGuess(category: .animal, label: "x", confidence: 0.9, name: "Dog", nameConfidence: 7)
        .nameConfidence == 1)
  }

  @Test func aGuessWithoutANameDecodesFromOlderJSON() throws {
    let old = #"{"category":"animal","label":"tree frog","confidence":0.9,"labelConfidence":0.7}"#
    let guess = try JSONDecoder().decode(LocalGuess.self, from: Data(old.utf8))
    #expect(guess.name == nil)
    #expect(guess.offlineName == "Tree Frog")
  }

  @Test func aLikelyLabelOfAnUnlikelyCategoryIsNoName() {
    let guess = LocalGuess(
      category: .object, label: "hair slide", confidence: 0.45, labelConfidence: 0.8)
    #expect(!guess.isCategoryLikely)
    #expect(!guess.isLabelLikely)
    #expect(guess.offlineName == "Not sure — maybe an object")
  }

  @Test func unlikelyCategoriesSaySo() {
    #expect(LocalGuess.likelyCategoryThreshold == 0.5)
    let plant = LocalGuess(category: .plant, label: "daisy", confidence: 0.49, labelConfidence: 0.1)
    #expect(plant.offlineName == "Not sure — maybe a plant")
    let insect = LocalGuess(category: .insect, label: "bee", confidence: 0.2)
    #expect(insect.offlineName == "Not sure — maybe an insect")
    #expect(
      LocalGuess(category: .food, label: "x", confidence: 0.3).offlineName
        == "Not sure — maybe food")
    #expect(
      LocalGuess(category: .unknown, label: "x", confidence: 0.99).offlineName
        == "Not sure what this is")
    let half = LocalGuess(category: .plant, label: "daisy", confidence: 0.5, labelConfidence: 0.1)
    #expect(half.offlineName == "Unidentified plant")
  }

  @Test func everyCategoryHasItsOwnLevelName() {
    let names = DexCategory.allCases.map(\.unidentifiedName)
    #expect(Set(names).count == DexCategory.allCases.count)
    #expect(DexCategory.plant.unidentifiedName == "Unidentified plant")
    #expect(DexCategory.fish.unidentifiedName == "Some kind of fish")
    #expect(DexCategory.bird.unidentifiedName == "Some kind of bird")
  }

  @Test func theOfflineEntryKeepsTheLabelAsTheLocalGuessLabel() {
    let guess = LocalGuess(
      category: .plant, label: "daisy", confidence: 0.66, labelConfidence: 0.35)
    let result = ScanResult.offlineFallback(for: guess)
    #expect(result.commonName == "Unidentified plant")
    #expect(result.dexCategory == .plant)
    #expect(result.confidence == 0.66)
    #expect(result.isOfflineFallback)
    let entry = DexEntry(scan: result, localGuess: guess)
    #expect(entry.localGuessLabel == "daisy")
    #expect(entry.commonName == "Unidentified plant")
  }

  @Test func labelConfidenceIsClampedAndOptionalInJSON() throws {
    #expect(
      LocalGuess(category: .plant, label: "x", confidence: 1, labelConfidence: 2).labelConfidence
        == 1)
    #expect(
      LocalGuess(category: .plant, label: "x", confidence: 1, labelConfidence: .nan).labelConfidence
        == 0)
    let old = Data(#"{"category": "plant", "label": "fern", "confidence": 0.7}"#.utf8)
    let decoded = try JSONDecoder().decode(LocalGuess.self, from: old)
    #expect(decoded == LocalGuess(category: .plant, label: "fern", confidence: 0.7))
    #expect(decoded.labelConfidence == nil)
    let new = LocalGuess(category: .plant, label: "fern", confidence: 0.7, labelConfidence: 0.3)
    #expect(try JSONDecoder().decode(LocalGuess.self, from: JSONEncoder().encode(new)) == new)
  }
}
