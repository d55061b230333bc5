import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexModel

/// The streamed parse against the whole-text parse, over the parser corpus cut every way.
@Suite("Incremental scan parser", .offCooperativePool)
struct IncrementalScanParserTests {
  static let clean = ScanResultParsingTests.clean

  static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
  }

  /// Model-shaped replies: the prompt's JSON, wrapped, fenced, sloppy, truncated, refused.
  static let replies: [String] = [
    clean,
    "```json\n\(clean)\n```",
    "Here is the identification you asked for:\n\n```json\n\(clean)\n```\nLet me know!",
    "Sure! \(clean) Hope that helps.",
    "\u{FEFF}\(clean)",
    "I looked {carefully} at the photo. {\"thinking\": \"orange wings\"}\n\(clean)",
    "{\"result\": \(clean)}",
    "[\(clean)]",
    "\"\(escaped(clean))\"",
    "{\"choices\": [{\"message\": {\"content\": \"\(escaped(clean))\"}}]}",
    "{commonName: 'Red Fox', category: animal, summary: 'A fox, it's red', facts: ['a', 'b',],"
      + " rarity: Common, confidence: 87%}",
    "{\"common_name\": \"Clownfish\", \"Scientific Name\": \"Amphiprion ocellaris\", "
      + "\"description\": \"Orange with \"white\" bands\", \"fun_facts\": \"Lives in anemones\"}",
    "{\"commonName\": \"Monstera\", \"category\": \"plant\", \"summary\": \"A climbing plant whose",
    "{\"commonName\": \"Monstera\", \"category\": \"plant\", \"confidence\": 0.9",
    "{\"commonName\": \"Unknown\", \"summary\": \"\"}",
    "I'm sorry, I can't identify people.",
    "{\"error\": {\"message\": \"rate limited\"}}",
    "{\"name\": \"Pikachu\", \"commonName\": \"Raichu\", \"category\": \"pokemon\"}",
    "{\"commonName\": \"Oak\", \"nested\": {\"a\": [1, {\"b\": \"}\"}]}, \"rarity\": \"rare\"}",
    "",
    "{}",
  ]

  static func corpus() throws -> [String] {
    let url = JSONRepairAgreementTests.fixtures.appendingPathComponent("json-repair-cases.json")
    struct Cases: Decodable {
      struct Case: Decodable { let input: String }
      let cases: [Case]
    }
    let cases = try JSONDecoder().decode(Cases.self, from: Data(contentsOf: url))
    return replies + cases.cases.map(\.input)
  }

  /// Feeds `chunks` and checks the partials grow; returns the last partial and the final.
  static func stream(
    _ chunks: [ArraySlice<UInt8>]
  ) -> (partial: PartialScanResult, final: Result<ScanResult, ScanResult.ParseError>, grew: Bool) {
    var parser = IncrementalScanParser()
    var last = PartialScanResult()
    var grew = true
    for chunk in chunks {
      if let partial = parser.consume(chunk) {
        grew = grew && partial.extends(last) && partial != last
        last = partial
      }
      grew = grew && parser.partial == last
    }
    return (last, Result { () throws(ScanResult.ParseError) in try parser.finish() }, grew)
  }

  static func whole(_ reply: String) -> Result<ScanResult, ScanResult.ParseError> {
    Result { () throws(ScanResult.ParseError) in try ScanResult(jsonString: reply) }
  }

  @Test func everyReplyCutAtEveryByte() throws {
    for reply in try Self.corpus() {
      let bytes = Array(reply.utf8)
      let outcome = Self.stream(bytes.indices.map { bytes[$0...$0] })
      #expect(outcome.grew, "partials shrank or changed: \(reply.prefix(80))")
      #expect(outcome.final == Self.whole(reply), "final differs: \(reply.prefix(80))")
    }
  }

  @Test func everyReplyCutAtRandomPlaces() throws {
    var generator = SeededGenerator(seed: 40)
    let corpus = try Self.corpus()
    for round in 0..<1_000 {
      let reply = corpus[round % corpus.count]
      let bytes = Array(reply.utf8)
      var cuts = Set(
        (0..<Int.random(in: 0...6, using: &generator)).map { _ in
          Int.random(in: 0...bytes.count, using: &generator)
        })
      cuts.insert(0)
      cuts.insert(bytes.count)
      let sorted = cuts.sorted()
      let chunks = zip(sorted, sorted.dropFirst()).map { bytes[$0..<$1] }
      let outcome = Self.stream(chunks)
      #expect(outcome.grew, "partials shrank or changed: \(reply.prefix(80))")
      #expect(outcome.final == Self.whole(reply), "final differs: \(reply.prefix(80))")
    }
  }

  @Test func nameComesFirstAndAgreesWithTheFinal() throws {
    var parser = IncrementalScanParser()
    var seen: [PartialScanResult] = []
    for byte in Self.clean.utf8 {
      if let partial = parser.consume(CollectionOfOne(byte)) { seen.append(partial) }
    }
    #expect(seen.first == PartialScanResult(commonName: "Monarch Butterfly"))
    #expect(seen.count == 7)
    #expect(seen.last == PartialScanResult(try parser.finish()))
  }

  @Test func modelRepliesPartialsAgreeWithTheFinal() {
    // For a reply the whole-text parse accepts, every field a partial showed is the final's,
    // except a field spelled twice (the first spelling shows, the field order decides).
    for reply in Self.replies {
      let bytes = Array(reply.utf8)
      let outcome = Self.stream(bytes.indices.map { bytes[$0...$0] })
      guard case .success(let final) = outcome.final, !reply.contains("\"name\"") else {
        continue
      }
      #expect(PartialScanResult(final).extends(outcome.partial), "\(reply.prefix(80))")
    }
  }

  @Test func aCutStreamKeepsTheFieldsSoFar() {
    struct Dropped: Error {}
    var parser = IncrementalScanParser()
    _ = parser.consume(text: #"{"commonName": "Red Fox", "category": "animal", "summ"#)
    let error = parser.interrupted(by: Dropped())
    #expect(error.partial == PartialScanResult(commonName: "Red Fox", category: "animal"))
    #expect(error.reason is Dropped)
    #expect(error.description.contains("2 of 7"))
  }

  @Test func workStaysLinearOnALargeReply() {
    // 20 000 one-byte chunks of a reply with a long summary: each member is read once.
    let summary = String(repeating: "word ", count: 4_000)
    let reply = #"{"commonName": "Oak", "summary": "\#(summary)", "rarity": "Rare"}"#
    var parser = IncrementalScanParser()
    var partials = 0
    for byte in reply.utf8 where parser.consume(CollectionOfOne(byte)) != nil { partials += 1 }
    #expect(partials == 3)
    #expect(parser.partial.rarity == "Rare")
  }
}
