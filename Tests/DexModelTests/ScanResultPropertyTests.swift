import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexModel

@Suite("ScanResult properties", .offCooperativePool)
struct ScanResultPropertyTests {
  /// A random result of the kind the parser produces: trimmed, named, normalized rarity,
  /// confidence in 0...1.
  static func randomResult(using generator: inout SeededGenerator) -> ScanResult {
    let words = [
      "Fox", "Red", "Monstera", "Pikachu", "Blue", "Jay", "Quartz", "Chanterelle", "Amanita",
      "élan", "naïve", "🦊", "\"quoted\"", "back\\slash", "line\nbreak", "tab\tstop", "O'Neil",
      "{brace}", "[bracket]", "100%", "// not a comment", "/* nor this */", "```", "“curly”",
    ]
    func phrase(_ count: ClosedRange<Int>) -> String {
      (0..<Int.random(in: count, using: &generator))
        .map { _ in words.randomElement(using: &generator) ?? "x" }
        .joined(separator: " ")
    }
    let categories = DexCategory.allCases.map(\.rawValue) + ["Mammal", "Plant/Flower", ""]
    return ScanResult(
      commonName: "Specimen " + phrase(0...3) + " X",
      category: categories.randomElement(using: &generator) ?? "",
      scientificName: Bool.random(using: &generator) ? "" : "Genus " + phrase(1...2) + " sp",
      summary: Bool.random(using: &generator) ? "" : "About " + phrase(1...12) + ".",
      facts: (0..<Int.random(in: 0...5, using: &generator)).map { _ in "Fact " + phrase(1...6) + "."
      },
      rarity: DexRarity.allCases.randomElement(using: &generator)?.rawValue ?? "Common",
      confidence: Double(Int.random(in: 0...1000, using: &generator)) / 1000)
  }

  @Test func encodingThenParsingGivesTheSameValue() throws {
    var generator = SeededGenerator(seed: 2026)
    let encoder = JSONEncoder()
    for iteration in 0..<500 {
      let original = Self.randomResult(using: &generator)
      if iteration.isMultiple(of: 2) {
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      } else {
        encoder.outputFormatting = []
      }
      let text = String(decoding: try encoder.encode(original), as: UTF8.self)
      let parsed = try ScanResult(jsonString: text)
      #expect(parsed == original)
      // Fenced and wrapped in prose too.
      #expect(try ScanResult(jsonString: "Here you go:\n```json\n\(text)\n```") == original)
    }
  }

  /// Builds a pretty reply from members and returns it with, per member, the shortest prefix
  /// length (in characters) that holds the member complete: up to its closing quote or
  /// bracket, or for a number up to the delimiter after it (more digits could have followed).
  static func reply(_ members: [(String, String)]) -> (text: String, completeAt: [String: Int]) {
    var text = "{\n"
    var completeAt: [String: Int] = [:]
    for (position, (key, value)) in members.enumerated() {
      text += "  \"\(key)\": \(value)"
      let closed = value.hasSuffix("\"") || value.hasSuffix("]")
      completeAt[key] = text.count + (closed ? 0 : 1)
      text += position == members.count - 1 ? "\n" : ",\n"
    }
    text += "}"
    return (text, completeAt)
  }

  /// The summary a prefix of the reply yields: complete, or cut and marked with "…" (trimmed),
  /// or empty when the cut left nothing of it.
  static func expectedSummary(_ prefix: String, full: String) -> String {
    guard let opening = prefix.range(of: "\"summary\": \"") else { return "" }
    let sent = prefix[opening.upperBound...]
    if sent.count > full.count { return full }  // the closing quote was sent
    let trimmed = sent.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? "" : trimmed + "…"
  }

  /// Every prefix of a reply either throws, or keeps each field whole; only the summary may
  /// be cut, and then it ends with "…".
  @Test func everyPrefixThrowsOrKeepsCompleteFields() throws {
    let (text, completeAt) = Self.reply([
      ("commonName", "\"Fly Agaric\""),
      ("category", "\"fungus\""),
      ("scientificName", "\"Amanita muscaria\""),
      (
        "summary",
        "\"The iconic red-and-white toadstool of fairy tales — beautiful and poisonous.\""
      ),
      (
        "facts",
        "[\"Forms partnerships with birch roots\", \"Toxic but rarely deadly\", \"Used in folklore\"]"
      ),
      ("rarity", "\"Uncommon\""),
      ("confidence", "0.88"),
    ])
    let full = try ScanResult(jsonString: text)
    let characters = Array(text)
    var accepted = 0
    for length in 0...characters.count {
      for wrapped in [false, true] {
        let prefix = String(characters[0..<length])
        let reply = wrapped ? "```json\n" + prefix : prefix
        guard let result = try? ScanResult(jsonString: reply) else { continue }
        accepted += 1
        func complete(_ key: String) -> Bool { length >= (completeAt[key] ?? .max) }
        #expect(complete("commonName"), "a name must be complete to be accepted")
        #expect(result.commonName == full.commonName)
        #expect(result.category == (complete("category") ? full.category : ""))
        #expect(result.scientificName == (complete("scientificName") ? full.scientificName : ""))
        #expect(result.summary == Self.expectedSummary(prefix, full: full.summary))
        #expect(full.facts.starts(with: result.facts), "facts are a prefix of the full list")
        if complete("facts") { #expect(result.facts == full.facts) }
        #expect(result.rarity == (complete("rarity") ? full.rarity : "Common"))
        #expect(result.confidence == (complete("confidence") ? full.confidence : 0))
      }
    }
    #expect(accepted > characters.count / 2, "most prefixes past the name are accepted")
  }
}
