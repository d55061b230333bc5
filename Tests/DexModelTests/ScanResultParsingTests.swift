import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexModel

@Suite("ScanResult parsing", .offCooperativePool)
struct ScanResultParsingTests {
  static let clean = """
    {
      "commonName": "Monarch Butterfly",
      "category": "insect",
      "scientificName": "Danaus plexippus",
      "summary": "A striking orange-and-black butterfly famous for its multi-generational migration.",
      "facts": ["Migrates up to 4,800 km", "Tastes bitter to birds", "Caterpillars eat only milkweed"],
      "rarity": "Uncommon",
      "confidence": 0.93
    }
    """

  static let monarch = ScanResult(
    commonName: "Monarch Butterfly", category: "insect", scientificName: "Danaus plexippus",
    summary: "A striking orange-and-black butterfly famous for its multi-generational migration.",
    facts: ["Migrates up to 4,800 km", "Tastes bitter to birds", "Caterpillars eat only milkweed"],
    rarity: "Uncommon", confidence: 0.93)

  @Test func cleanReply() throws {
    let result = try ScanResult(jsonString: Self.clean)
    #expect(result == Self.monarch)
    #expect(result.dexCategory == .insect)
    #expect(result.dexRarity == .uncommon)
  }

  // MARK: Layer 1: candidates

  @Test(
    "Fences, prose and wrappers are looked through",
    arguments: [
      "```json\n\(clean)\n```",
      "```JSON\n\(clean)\n```",
      "```\n\(clean)\n```",
      "~~~json5\n\(clean)\n~~~",
      "Here is the identification you asked for:\n\n```json\n\(clean)\n```\nLet me know if you need more!",
      "Sure! \(clean) Hope that helps.",
      "\u{FEFF}\(clean)",
      "<pre><code class=\"language-json\">\(clean.replacingOccurrences(of: "\"", with: "&quot;"))</code></pre>",
      "I looked {carefully} at the photo. {\"thinking\": \"orange wings, black veins\"}\n\(clean)",
      "{\"result\": \(clean)}",
      "{\"data\": {\"entry\": \(clean)}}",
      "[\(clean)]",
      "\"\(clean.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n"))\"",
      "{\"result\": \"\(clean.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n"))\"}",
      "{\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"\(clean.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n"))\"}}]}",
      "```json\n{\"thinking\": \"...\"}\n```\n```json\n\(clean)\n```",
    ])
  func wrappedReplies(reply: String) throws {
    #expect(try ScanResult(jsonString: reply) == Self.monarch)
  }

  // MARK: Layer 2: lenient JSON

  @Test func lenientSyntaxAllAtOnce() throws {
    let reply = """
      {
        // model commentary
        commonName: 'Monarch Butterfly',
        “category”: “insect”,
        'scientificName': "Danaus plexippus"
        "summary": "A striking orange-and-black butterfly famous for its multi-generational migration.",
        "facts": ["Migrates up to 4,800 km", "Tastes bitter to birds", "Caterpillars eat only milkweed",],
        "rarity": Uncommon, /* bare word */
        "confidence": 0.93,
        "verified": True,
        "notes": None,
      }
      """
    #expect(try ScanResult(jsonString: reply) == Self.monarch)
  }

  @Test func truncatedReplyKeepsCompleteFields() throws {
    let reply = """
      ```json
      {
        "commonName": "Monarch Butterfly",
        "category": "insect",
        "scientificName": "Danaus plexippus",
        "summary": "A striking orange-and-black butterfly famous for its multi-generational migration.",
        "facts": ["Migrates up to 4,800 km", "Tastes bitter to bi
      """
    let result = try ScanResult(jsonString: reply)
    #expect(result.commonName == "Monarch Butterfly")
    #expect(result.scientificName == "Danaus plexippus")
    #expect(result.facts == ["Migrates up to 4,800 km"])
    #expect(result.rarity == "Common")
    #expect(result.confidence == 0)
  }

  // MARK: Layer 3: tolerant fields

  @Test func snakeCaseAndSynonyms() throws {
    let result = try ScanResult(
      jsonString:
        #"{"common_name": " Red Fox ", "scientific_name": "_Vulpes vulpes_", "Category": "Mammal", "description": "Clever.", "fun_facts": "- Eats berries\n- Hunts mice", "rarity_level": "common", "confidence_score": "87%"}"#
    )
    #expect(result.commonName == "Red Fox")
    #expect(result.scientificName == "Vulpes vulpes")
    #expect(result.summary == "Clever.")
    #expect(result.facts == ["Eats berries", "Hunts mice"])
    #expect(result.rarity == "Common")
    #expect(result.confidence == 0.87)
    #expect(result.dexCategory == .animal)
  }

  @Test(
    "Confidence in every shape",
    arguments: [
      ("0.87", 0.87), ("\"0.87\"", 0.87), ("\"87%\"", 0.87), ("87", 0.87), ("87%", 0.87),
      ("100", 1.0), ("1", 1.0), ("250", 1.0), ("-3", 0.0), ("\"high\"", 0.85),
      ("null", 0.0), ("\"abc\"", 0.0), ("[0.5]", 0.0), ("true", 0.0), ("\" 42 % \"", 0.42),
      ("1e-1", 0.1),
    ])
  func confidence(raw: String, expected: Double) throws {
    let result = try ScanResult(
      jsonString: #"{"commonName": "Fox", "summary": "x", "confidence": \#(raw)}"#)
    #expect(abs(result.confidence - expected) < 1e-9, "\(raw)")
  }

  @Test(
    "Rarity is normalized",
    arguments: [
      ("\"RARE\"", "Rare"), ("\" legendary \"", "Legendary"), ("\"uncommon\"", "Uncommon"),
      ("\"Very Rare\"", "Rare"), ("\"mythic\"", "Common"), ("null", "Common"), ("3", "Common"),
    ])
  func rarity(raw: String, expected: String) throws {
    let result = try ScanResult(
      jsonString: #"{"commonName": "Fox", "summary": "x", "rarity": \#(raw)}"#)
    #expect(result.rarity == expected)
  }

  @Test func factsFromEveryShape() throws {
    func facts(_ raw: String) throws -> [String] {
      try ScanResult(jsonString: #"{"commonName": "Fox", "summary": "x", "facts": \#(raw)}"#).facts
    }
    #expect(try facts(#"["a", " b ", "", null, 3]"#) == ["a", "b", "3"])
    #expect(try facts(#""Just one fact.""#) == ["Just one fact."])
    #expect(try facts(#""1. First\n2) Second\n• Third""#) == ["First", "Second", "Third"])
    #expect(try facts("null") == [])
    #expect(try facts("{}") == [])
  }

  @Test func nullsAndWrongTypesFallBackToDefaults() throws {
    let result = try ScanResult(
      jsonString:
        #"{"commonName": "Fox", "category": null, "scientificName": 42, "summary": ["Clever", "quick"], "facts": 7, "rarity": {}, "confidence": "n/a"}"#
    )
    #expect(
      result
        == ScanResult(
          commonName: "Fox", category: "", scientificName: "42", summary: "Clever, quick",
          facts: [], rarity: "Common", confidence: 0))
    #expect(result.dexCategory == .unknown)
  }

  @Test func decodableUsesTheSameTolerance() throws {
    let data = Data(#"{"common_name": "Fox", "confidence": "90%"}"#.utf8)
    let result = try JSONDecoder().decode(ScanResult.self, from: data)
    #expect(result.commonName == "Fox")
    #expect(result.confidence == 0.9)
  }

  // MARK: Layer 4: rejection

  @Test(
    "Each rejection class throws its own error",
    arguments: [
      ("", ScanResult.ParseError.emptyReply),
      ("   \n\t ", .emptyReply),
      ("The photo shows a cat sitting on a sofa.", .noJSON),
      ("{}", .emptyObject),
      ("```json\n{}\n```", .emptyObject),
      (#"{"commonName": "", "summary": "Something"}"#, .noIdentification),
      (#"{"commonName": "Unknown", "summary": ""}"#, .noIdentification),
      (#"{"commonName": " UNKNOWN ", "category": "plant"}"#, .noIdentification),
      (#"{"commonName": null, "summary": "Something"}"#, .noIdentification),
      (#"{"summary": "A blurry photo"}"#, .noIdentification),
      (
        #"{"refusal": "I can't help with identifying people."}"#,
        .refusal("I can't help with identifying people.")
      ),
      (
        "I'm sorry, but I can't identify people in photos.",
        .refusal("I'm sorry, but I can't identify people in photos.")
      ),
      (
        #"{"error": {"message": "Rate limit reached for gpt-4o", "type": "requests", "code": "rate_limit_exceeded"}}"#,
        .apiError("Rate limit reached for gpt-4o")
      ),
      (#"{"error": "upstream timeout"}"#, .apiError("upstream timeout")),
      ("{ @@@ }", .malformedJSON),
    ])
  func rejections(reply: String, expected: ScanResult.ParseError) {
    #expect(throws: expected) { try ScanResult(jsonString: reply) }
  }

  @Test func unknownThatExplainsItselfIsKept() throws {
    // The spec's rule: "Unknown" is only rejected with an empty summary, so the user sees why.
    let reason = "The photo is too dark to identify the subject."
    let result = try ScanResult(
      jsonString: #"{"commonName": "Unknown", "category": "unknown", "summary": "\#(reason)"}"#)
    #expect(result.commonName == "Unknown")
    #expect(result.summary == reason)
    #expect(result.dexCategory == .unknown)
    // A placeholder name or one with no letter or digit names nothing; a name that merely
    // contains a placeholder's word does.
    for name in ["N/A", "null", "Unknown.", "Unidentified", "???", "\u{2060}\u{00AD}", "  "] {
      #expect(throws: ScanResult.ParseError.self, "\(name)") {
        try ScanResult(jsonString: #"{"commonName": "\#(name)", "category": "plant"}"#)
      }
    }
    #expect(try ScanResult(jsonString: #"{"commonName": "Type: Null"}"#).commonName == "Type: Null")
    #expect(
      try ScanResult(jsonString: #"{"commonName": "N/A", "summary": "\#(reason)"}"#).summary
        == reason)
  }

  // MARK: Slips models make

  @Test func unescapedQuotesStayInTheirField() throws {
    let result = try ScanResult(
      jsonString: #"""
        {"commonName": "Mango", "category": "plant",
         "summary": "Often called the "king of fruits" in South Asia.",
         "facts": ["Known as the "king of fruits"", "India grows the most"]}
        """#)
    #expect(result.summary == #"Often called the "king of fruits" in South Asia."#)
    #expect(result.facts == [#"Known as the "king of fruits""#, "India grows the most"])
    #expect(result.commonName == "Mango")
    #expect(result.dexCategory == .plant)
  }

  @Test func missingValueAndEllipsis() throws {
    let result = try ScanResult(
      jsonString: #"""
        {"commonName": "Mango", "scientificName": , "category": "plant",
         "facts": ["Sweet", "Tropical", ...], "rarity": "Common", "confidence": 0.9}
        """#)
    #expect(result.scientificName == "")
    #expect(result.facts == ["Sweet", "Tropical"])
    #expect(result.dexCategory == .plant)
    #expect(result.confidence == 0.9)
  }

  @Test func unclosedStringEndsAtTheNextStructure() throws {
    let result = try ScanResult(
      jsonString: #"""
        {"commonName": "Spearmint", "category": ["Mint family], "rarity": "Uncommon",
         "summary": "A fresh herb, "confidence": 0.8}
        """#)
    #expect(result.commonName == "Spearmint")
    #expect(result.category == "Mint family")
    #expect(result.rarity == "Uncommon")
    #expect(result.summary == "A fresh herb")
    #expect(result.confidence == 0.8)
  }

  @Test func cutSummaryIsKeptAndMarked() throws {
    let reply = """
      ```json
      {"commonName": "Red Fox", "category": "animal", "facts": ["Eats berries"],
       "summary": "The red fox is the largest of the true foxes and\u{20}
      """
    let result = try ScanResult(jsonString: reply)
    #expect(result.summary == "The red fox is the largest of the true foxes and…")
    #expect(result.facts == ["Eats berries"])
    // Any other field cut off is dropped: half a name or a number is a wrong value.
    let cutFact = try ScanResult(
      jsonString:
        #"{"commonName": "Red Fox", "summary": "Sly.", "facts": ["Eats berries", "Hunts m"#
    )
    #expect(cutFact.facts == ["Eats berries"])
    let cutConfidence = try ScanResult(
      jsonString: #"{"commonName": "Red Fox", "summary": "Sly.", "confidence": 0.9"#)
    #expect(cutConfidence.confidence == 0)
    #expect(throws: ScanResult.ParseError.noIdentification) {
      try ScanResult(jsonString: #"{"summary": "Sly.", "commonName": "Red F"#)
    }
  }

  @Test func errorDescriptionsAreShortAndReadable() {
    let long = String(repeating: "word ", count: 200)
    let error = ScanResultExtractor.excerpt(long)
    #expect(error.count == 120)
    #expect(
      ScanResult.ParseError.apiError("quota").localizedDescription
        == "The identification service returned an error: quota")
    #expect(
      ScanResult.ParseError.noJSON.description
        == "The identification reply contained no JSON object.")
  }

  // MARK: Robustness

  @Test func hostileInputsNeverCrash() {
    let inputs = [
      String(repeating: "[", count: 100_000),
      String(repeating: "{", count: 100_000),
      String(repeating: "{\"a\":", count: 100_000),
      String(repeating: "\"", count: 100_001),
      String(repeating: "{\"a\": \"", count: 20_000),
      String(repeating: "```", count: 10_000),
      String(repeating: "\\", count: 10_000),
      "{\"commonName\": \"" + String(repeating: "x", count: 1_000_000),
    ]
    for input in inputs {
      #expect(throws: ScanResult.ParseError.self) { try ScanResult(jsonString: input) }
    }
  }

  @Test func megabytesOfProseFinish() throws {
    // Linear time: a quadratic scan over 2 MB of brace-laden prose would not finish.
    let prose = String(
      repeating: "Lorem ipsum {dolor} sit amet, consectetur { adipiscing: elit. ", count: 35_000)
    #expect(prose.utf8.count > 2_000_000)
    #expect(throws: ScanResult.ParseError.self) { try ScanResult(jsonString: prose) }
    // Thousands of brace-laden sentences before the answer do not hide it.
    #expect(try ScanResult(jsonString: prose + Self.clean) == Self.monarch)
  }

  @Test func randomRepliesNeverCrash() {
    var generator = SeededGenerator(seed: 7)
    let pieces = [
      "{", "}", "[", "]", "\"", "'", ":", ",", "```json\n", "```", "commonName", "summary",
      "\"Fox\"", "null", "87%", "\\", "\n", " ", "“", "”", "<code>", "&quot;", "{\"result\":",
      "0.5", "True",
    ]
    for _ in 0..<3000 {
      let count = Int.random(in: 0..<40, using: &generator)
      let reply = (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
      _ = try? ScanResult(jsonString: reply)
    }
  }
}
