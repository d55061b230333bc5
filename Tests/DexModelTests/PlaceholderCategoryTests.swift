import Foundation
import Testing

@testable import DexModel

/// Placeholders that say no category was given are ``DexCategory/unknown`` in every path.
@Suite struct PlaceholderCategoryTests {
  static let placeholders = [
    "N/A", "n/a", "NA", "n.a.", "none", "None", "unknown", "Unknown", "-", "—", "?", "null", "",
    "  ", "Not applicable", "not available", "(none)", "[unknown]",
  ]

  @Test(arguments: placeholders) func aPlaceholderIsUnknown(_ placeholder: String) {
    #expect(DexCategory.isPlaceholder(placeholder))
    #expect(DexCategory.matching(placeholder) == .unknown)
    #expect(DexKeywordMatcher.standard.category(for: placeholder) == .unknown)
    // Among ranked labels it is skipped, so the next label decides.
    #expect(DexCategory.matching(fromLabels: [placeholder, "daisy"]) == .plant)
    #expect(DexKeywordMatcher.standard.category(forLabels: [placeholder, "tench"]) == .fish)
  }

  @Test func aCloudReplyWithACategoryOfNAIsStoredAsUnknown() throws {
    let scan = try ScanResult(
      jsonString: #"{"commonName": "Mystery", "category": "N/A", "confidence": 0.4}"#)
    #expect(scan.dexCategory(using: DexKeywordMatcher.standard) == .unknown)
    let entry = DexEntry(scan: scan, localGuess: nil)
    #expect(entry.category == .unknown)
  }

  @Test func realCategoriesAreNotPlaceholders() {
    for word in ["Food", "Plant", "Nautilus", "Nan bread", "Na Pali coast", "Other animal", "Bee"] {
      #expect(!DexCategory.isPlaceholder(word), "\(word)")
    }
    #expect(DexCategory.matching("Food") == .food)
    #expect(DexCategory.matching("Plant/Flower") == .plant)
  }

  /// A custom matcher that would place anything still never sees a placeholder.
  @Test func aHostMatcherNeverSeesAPlaceholder() {
    struct Everything: DexCategoryMatching {
      func category(for string: String) -> DexCategory { .food }
      func category(forLabels labels: [String]) -> DexCategory { labels.isEmpty ? .unknown : .food }
    }
    #expect(DexCategory.matching("N/A", using: Everything()) == .unknown)
    #expect(DexCategory.matching(fromLabels: ["n/a", "-"], using: Everything()) == .unknown)
    #expect(DexCategory.matching("Fruit", using: Everything()) == .food)
  }
}
