import DexTestTraits
import Foundation
import Testing

@testable import DexModel

/// Replies shaped so that a lenient reader would read the rest of the input again for every
/// string without its closing quote: the work stays a small multiple of the reply's size. The
/// checks count work (documents read, bytes stepped back over), never time.
@Suite(.offCooperativePool) struct ParsingWorkBoundTests {
  /// Many small objects whose value opens with a typographic quote that never closes: each was
  /// read to the end of the reply, then ended at its `}`, and the next object read it all again.
  @Test func manyObjectsWithUnclosedStringsAreReadALimitedNumberOfTimes() {
    let reply = String(repeating: #"{"a":‘x}"#, count: 5_000)
    var extractor = ScanResultExtractor()
    #expect(throws: ScanResult.ParseError.self) { try extractor.extract(from: reply) }
    // The budget (four times the reply) is spent by reading to the end a few times.
    #expect(extractor.documentsRead < 50, "\(extractor.documentsRead) documents")
  }

  /// One document of many unclosed strings: stepping back is bounded within the document too.
  @Test func oneDocumentOfUnclosedStringsStepsBackABoundedDistance() throws {
    let text = #"{"a":["# + String(repeating: #"["x] "#, count: 4_000)
    let document = try LenientJSONReader().document(from: text)
    #expect(document.steppedBack <= 4 * text.utf8.count + 65_536)
    // A reply that is not hostile steps back only over what its repairs need.
    let slip = try LenientJSONReader().document(
      from: #"{"name": "Mint, "rarity": "Common", "facts": ["a", "b]}"#)
    #expect(slip.steppedBack < 64)
  }

  /// A reply full of unfinished `<pre` tags: the tag pattern is bounded, so stripping it is
  /// linear; a real `<pre>` block is still unwrapped.
  @Test func unfinishedHTMLTagsAreLeftAlone() throws {
    // A tag's attributes stop at the next `<` (and at 256 bytes), so only the last, finished
    // tag goes: the first one no longer runs over all the others to the `>`.
    let text = String(repeating: "<pre ", count: 2_000)
    #expect(ScanResultExtractor.strippingHTMLCode(text) == text)
    #expect(
      ScanResultExtractor.strippingHTMLCode(text + ">")
        == String(repeating: "<pre ", count: 1_999))
    let wrapped = #"<pre class="json">{"commonName": "Fern"}</pre>"#
    #expect(ScanResultExtractor.strippingHTMLCode(wrapped) == #"{"commonName": "Fern"}"#)
  }
}

/// Fields of megabytes are cut to lengths no real entry reaches, before anything matches them.
@Suite struct FieldLimitTests {
  @Test func everyFieldIsCutToItsLimit() throws {
    let long = String(repeating: "q", count: 100_000)
    let facts = (0..<50).map { "\"fact \($0) \(long)\"" }.joined(separator: ",")
    let reply =
      #"{"commonName": "Fern \#(long)", "category": "\#(long)", "scientificName": "\#(long)", "#
      + #""summary": "\#(long)", "facts": [\#(facts)]}"#
    let result = try ScanResult(jsonString: reply)
    #expect(result.commonName.count == 200 && result.commonName.hasSuffix("…"))
    #expect(result.commonName.hasPrefix("Fern q"))
    #expect(result.category.count == 64)
    #expect(result.scientificName.count == 200)
    #expect(result.summary.count == 4_000)
    #expect(result.facts.count == 20)
    #expect(result.facts.allSatisfy { $0.count <= 500 })
    #expect(result.dexCategory == .unknown)
    // Real values are untouched.
    let fern = try ScanResult(jsonString: #"{"commonName": "Fern", "category": "plant"}"#)
    #expect(fern.commonName == "Fern" && fern.category == "plant")
  }
}
