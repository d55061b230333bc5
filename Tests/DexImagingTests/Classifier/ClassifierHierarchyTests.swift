import DexModel
import Foundation
import Testing

@testable import DexImaging

/// Naming a guess at the most specific level the classifier is sure of, over the bundled
/// WordNet tree (``ClassifierHierarchy``) and the bundled ImageNet classes.
@Suite struct ClassifierHierarchyTests {
  private static let table: ClassifierLabelTable? = ClassifierModel.bundledResource(
    "ImageNetLabels", "tsv"
  ).flatMap { try? ClassifierLabelTable(contentsOf: $0) }

  /// All 1000 classes: the given ones (by label) with their probability, the rest sharing what
  /// is left evenly.
  private func distribution(_ given: [String: Double]) throws -> [ClassificationLabel] {
    let table = try #require(Self.table)
    let rest = (1 - given.values.reduce(0, +)) / Double(table.entries.count - given.count)
    var found = 0
    let labels = table.entries.map { entry in
      let p = given[entry.label].map { value in
        found += 1
        return value
      }
      return ClassificationLabel(
        identifier: entry.identifier, label: entry.label, confidence: p ?? rest,
        category: entry.category)
    }
    try #require(found == given.count, "every given label is a bundled class")
    return labels
  }

  private func guess(_ given: [String: Double]) throws -> LocalGuess {
    try #require(ImageClassifier.guess(fromDistribution: distribution(given)))
  }

  @Test func theBundledTreeLoadsAndAgreesWithTheLabelTable() throws {
    let tree = try ClassifierHierarchy.loadBundled()
    let table = try #require(Self.table)
    let categories = Dictionary(
      uniqueKeysWithValues: table.entries.map { ($0.identifier, $0.category) })
    #expect(tree.nodes.count > 100)
    for node in tree.nodes {
      #expect(node.classes.count >= 2, "\(node.name)")
      #expect(node.classes.allSatisfy { categories[$0] == node.category }, "\(node.name)")
      #expect(node.category != .object && node.category != .unknown)
    }
    let names = Set(tree.nodes.map(\.name))
    for expected in ["Domestic Cat", "Dog", "Spaniel", "Citrus Fruit", "Flower", "Butterfly"] {
      #expect(names.contains(expected), "\(expected)")
    }
  }

  /// Level 1: one class is sure, so it is the name.
  @Test func aSureClassIsTheName() throws {
    let guess = try guess(["Golden Retriever": 0.9])
    #expect(guess.category == .animal)
    #expect(guess.name == "Golden Retriever")
    #expect(guess.label == "Golden Retriever")
    #expect(guess.offlineName == "Golden Retriever")
  }

  /// Level 2: four spaniels at 15–20 % each; none is sure, nor are the two springers together
  /// (35 %), but the spaniels are (75 %).
  @Test func aSureNodeBelowTheCategoryIsTheName() throws {
    let guess = try guess([
      "Brittany dog": 0.2, "Clumber Spaniel": 0.2, "English Springer Spaniel": 0.2,
      "Welsh Springer Spaniel": 0.15,
    ])
    #expect(guess.category == .animal)
    #expect(guess.name == "Spaniel")
    let confidence = try #require(guess.nameConfidence)
    #expect(confidence >= 0.75 && confidence < 0.8)
    #expect(guess.offlineName == "Spaniel")
    #expect(guess.label == "Brittany dog" || guess.label.hasSuffix("Spaniel"))
    // The three cats sum to a domestic cat.
    let cat = try self.guess(["tabby cat": 0.3, "tiger cat": 0.25, "Egyptian Mau": 0.3])
    #expect(cat.offlineName == "Domestic Cat")
    #expect(cat.label == "tabby cat" || cat.label == "Egyptian Mau")
  }

  /// Level 3: eight animals from different branches; the category is sure, no node below it is.
  @Test func noSureNodeFallsBackToTheCategory() throws {
    let guess = try guess([
      "koala": 0.12, "hamster": 0.12, "brown bear": 0.12, "African bush elephant": 0.12,
      "jellyfish": 0.12, "snail": 0.12, "Dungeness crab": 0.12, "newt": 0.12,
    ])
    #expect(guess.category == .animal)
    #expect(guess.isCategoryLikely)
    #expect(guess.name == "")
    #expect(guess.nameConfidence == nil)
    #expect(guess.offlineName == "Unidentified animal")
  }

  /// Level 4: the category itself is not sure.
  @Test func anUnsureCategoryIsNotSure() throws {
    let guess = try guess(["tabby cat": 0.3, "vase": 0.3, "great grey owl": 0.3])
    #expect(guess.category == .animal)
    #expect(guess.confidence < LocalGuess.likelyCategoryThreshold)
    #expect(guess.offlineName == "Not sure — maybe an animal")
  }

  /// Level 4 for scenery and people: `unknown` is never named below itself, however sure its
  /// classes are, and its entry says so.
  @Test func aSureUnknownIsNeverNamed() throws {
    let guess = try guess(["volcano": 0.5, "mountain": 0.3, "valley": 0.1])
    #expect(guess.category == .unknown)
    #expect(guess.confidence >= LocalGuess.likelyCategoryThreshold)
    #expect(guess.name == "")
    #expect(guess.nameConfidence == nil)
    #expect(guess.offlineName == "Not sure what this is")
  }

  /// The fitted naming threshold is where a node starts to name the entry: just below it the
  /// domestic cats are not the name (a larger node that pools the rest of the animals' spread
  /// probability may be), just above it they are.
  @Test func theFittedThresholdSeparatesANodeFromItsParents() throws {
    let threshold = ClassifierCalibration.fitted.namingThreshold
    let cats = ["tabby cat", "tiger cat", "Egyptian Mau"]
    let below = try guess(
      Dictionary(uniqueKeysWithValues: cats.map { ($0, (threshold - 0.02) / 3) }))
    #expect(below.category == .animal)
    #expect(below.isCategoryLikely)
    #expect(below.name != "Domestic Cat", "\(below)")
    #expect(below.offlineName != "Domestic Cat")
    let above = try guess(
      Dictionary(uniqueKeysWithValues: cats.map { ($0, (threshold + 0.02) / 3) }))
    #expect(above.name == "Domestic Cat", "\(above)")
    #expect(above.offlineName == "Domestic Cat")
  }

  /// Without a tree (a host's own model) the guess leaves the name unset and is named by its
  /// label as before.
  @Test func withoutATreeTheNameIsUnset() throws {
    let guess = try #require(
      ImageClassifier.guess(
        fromDistribution: distribution(["Golden Retriever": 0.9]), hierarchy: nil))
    #expect(guess.name == nil)
    #expect(guess.offlineName == "Golden Retriever")
  }

  @Test(arguments: [
    ("", "no nodes"),
    ("# only a comment\n", "no nodes"),
    ("n1\tanimal\tCat\n", "malformed"),
    ("n1\tanimal\tCat\ta,b\textra\n", "malformed"),
    ("\tanimal\tCat\ta,b\n", "malformed"),
    ("n1\tdragons\tCat\ta,b\n", "unknown category"),
    ("n1\tanimal\t\ta,b\n", "no name"),
    ("n1\tanimal\tCat\t,,\n", "no classes"),
  ])
  func aMalformedTreeIsATypedError(text: String, reason: String) {
    #expect(throws: ClassifierError.self) { try ClassifierHierarchy(tsv: text) }
    do {
      _ = try ClassifierHierarchy(tsv: text)
    } catch {
      #expect("\(error)".contains(reason), "\(error)")
    }
  }

  @Test func anUnreadableTreeFileIsATypedError() {
    let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
      "no-such-\(UUID().uuidString).tsv")
    #expect(throws: ClassifierError.self) { try ClassifierHierarchy(contentsOf: missing) }
  }

  @Test func aParsedTreeNamesItsNodes() throws {
    let tree = try ClassifierHierarchy(tsv: "n1\tanimal\tSmall Thing\ta, b\n")
    #expect(
      tree.nodes == [
        .init(identifier: "n1", category: .animal, name: "Small Thing", classes: ["a", "b"])
      ])
    let named = tree.specificName(
      in: [
        ClassificationLabel(identifier: "a", label: "ay", confidence: 0.4, category: .animal),
        ClassificationLabel(identifier: "b", label: "bee", confidence: 0.4, category: .animal),
      ], category: .animal, categoryConfidence: 0.7, threshold: 0.6)
    #expect(named?.name == "Small Thing")
    #expect(named?.confidence == 0.7, "capped by the category's confidence")
  }
}
