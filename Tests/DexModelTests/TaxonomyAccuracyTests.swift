import DexTestTraits
import Foundation
import Testing

@testable import DexModel

/// The matcher on real taxonomies' class names, hand-labelled (Fixtures/Taxonomies, sources and
/// licences in SOURCES.md): natural-category accuracy and false natural claims, with keywords
/// alone (before the lexicon) and with the WordNet lexicon. Prints one line per taxonomy.
@Suite("Matcher accuracy on taxonomies", .offCooperativePool)
struct TaxonomyAccuracyTests {
  struct Row {
    let label: String
    let expected: Set<DexCategory>
  }

  struct Score: CustomStringConvertible {
    var natural = 0
    var naturalRight = 0
    var other = 0
    var falseNatural = 0
    var misses: [String] = []

    var accuracy: Double { natural == 0 ? 1 : Double(naturalRight) / Double(natural) }
    var falseClaims: Double { other == 0 ? 0 : Double(falseNatural) / Double(other) }
    var description: String {
      String(
        format: "natural %d/%d = %.1f %%, false natural claims %d/%d = %.1f %%", naturalRight,
        natural, accuracy * 100, falseNatural, other, falseClaims * 100)
    }
  }

  /// Categories a collector would call a natural subject (food included), as in issue 20.
  static let natural: Set<DexCategory> = [
    .plant, .animal, .fish, .bird, .insect, .reptile, .mineral, .fungus, .food,
  ]

  static func rows(_ name: String) throws -> [Row] {
    let url = try #require(
      Bundle.module.url(
        forResource: name, withExtension: "tsv", subdirectory: "Fixtures/Taxonomies"))
    let text = try String(contentsOf: url, encoding: .utf8)
    return try text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
      let fields = line.split(separator: "\t")
      try #require(fields.count == 2, "bad fixture line: \(line)")
      let expected = try fields[1].split(separator: "|").map { raw in
        try #require(DexCategory(rawValue: String(raw)), "bad category in: \(line)")
      }
      return Row(label: String(fields[0]), expected: Set(expected))
    }
  }

  static func score(_ rows: [Row], matcher: DexKeywordMatcher) -> Score {
    var score = Score()
    for row in rows {
      let got = matcher.category(forLabels: [row.label])
      if row.expected.isDisjoint(with: natural) {
        score.other += 1
        if natural.contains(got) {
          score.falseNatural += 1
          score.misses.append("\(row.label) → \(got.rawValue) (expected \(row.expected))")
        }
      } else {
        score.natural += 1
        if row.expected.contains(got) {
          score.naturalRight += 1
        } else {
          score.misses.append("\(row.label) → \(got.rawValue) (expected \(row.expected))")
        }
      }
    }
    return score
  }

  @Test(arguments: ["imagenet-1k", "coco-80", "open-images-v7"])
  func taxonomy(name: String) throws {
    let rows = try Self.rows(name)
    #expect(rows.count >= 80)
    var keywordsOnly = DexKeywordMatcher.standard
    keywordsOnly.lexicon = nil
    let before = Self.score(rows, matcher: keywordsOnly)
    let after = Self.score(rows, matcher: .standard)
    print("taxonomy \(name) (\(rows.count) labels): keywords only: \(before)")
    print("taxonomy \(name) (\(rows.count) labels): with lexicon:  \(after)")
    for miss in after.misses { print("  miss \(name): \(miss)") }
    // Issue 20's targets, on every taxonomy: natural accuracy ≥ 95 %, false natural claims
    // ≤ 3 %. COCO's one false claim is "mouse" (COCO means the computer's; WordNet's most
    // frequent sense, and the keywords', is the animal): 1 of 59.
    #expect(after.accuracy >= 0.95, "\(name): \(after)")
    #expect(after.falseClaims <= 0.03, "\(name): \(after)")
    #expect(after.accuracy >= before.accuracy, "\(name): the lexicon never costs accuracy")
    #expect(after.falseNatural <= before.falseNatural, "\(name): nor adds false claims")
  }
}
