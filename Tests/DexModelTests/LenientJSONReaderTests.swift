import DexTestTraits
import Testing

@testable import DexModel

@Suite("Lenient JSON reader", .offCooperativePool)
struct LenientJSONReaderTests {
  let reader = LenientJSONReader()

  func read(_ text: String) throws -> JSONValue { try reader.value(from: text) }

  @Test func standardJSON() throws {
    let value = try read(#"{"a": 1, "b": [true, false, null], "c": "x\ny\u00e9\ud83d\ude00"}"#)
    #expect(value["a"] == .number(1))
    #expect(value["b"] == .array([.bool(true), .bool(false), .null]))
    #expect(value["c"] == .string("x\nyé😀"))
  }

  @Test func trailingAndRepeatedCommas() throws {
    #expect(
      try read(#"{"a": 1,, "b": [1, 2,],}"#)
        == .object(["a": .number(1), "b": .array([.number(1), .number(2)])]))
  }

  @Test func singleAndTypographicQuotes() throws {
    #expect(try read("{'name': 'Red Fox'}")["name"] == .string("Red Fox"))
    #expect(try read("{“name”: “Red “Fox””}")["name"] == .string("Red “Fox"))
    #expect(try read("{”name”: ”Fox”}")["name"] == .string("Fox"))
    #expect(
      try read("{“name”: “Snow Owl”, ‘kind’: ‘bird’}")
        == .object(["name": .string("Snow Owl"), "kind": .string("bird")]))
    #expect(
      try read(#"{"quote": "say \"hi\" and 'bye'"}"#)["quote"] == .string(#"say "hi" and 'bye'"#))
  }

  @Test func unquotedKeysAndBareValues() throws {
    let value = try read("{commonName: \"Fox\", rarity: Rare, common_name2 = 'x'}")
    #expect(value["commonName"] == .string("Fox"))
    #expect(value["rarity"] == .string("Rare"))
    #expect(value["common_name2"] == .string("x"))
  }

  @Test func comments() throws {
    let text = """
      {
        // the name
        "a": 1, /* inline */ "b": 2,
        # python style
        "c": "http://not-a-comment"
      }
      """
    #expect(
      try read(text)
        == .object(["a": .number(1), "b": .number(2), "c": .string("http://not-a-comment")]))
  }

  @Test func pythonLiterals() throws {
    #expect(
      try read("[True, False, None, nil, undefined, NaN, Infinity, -Infinity]")
        == .array([.bool(true), .bool(false), .null, .null, .null, .null, .null, .null]))
  }

  @Test func missingCommasBetweenLines() throws {
    let text = """
      {
        "a": "one"
        "b": 2
        "c": ["x" "y"]
      }
      """
    #expect(
      try read(text)
        == .object([
          "a": .string("one"), "b": .number(2), "c": .array([.string("x"), .string("y")]),
        ]))
  }

  @Test func numbersAndPercent() throws {
    #expect(
      try read("[0.87, -1e3, +5, .5, 87%]")
        == .array([.number(0.87), .number(-1000), .number(5), .number(0.5), .number(87)]))
  }

  @Test func wrongClosersCloseTheInnermostContainer() throws {
    #expect(
      try read(#"{"facts": ["a", "b"}"#)
        == .object(["facts": .array([.string("a"), .string("b")])]))
  }

  @Test func truncationKeepsCompleteMembersAndClosesContainers() throws {
    let document = try reader.document(from: #"{"a": "done", "b": ["x", "y", "partial str"#)
    #expect(document.isTruncated)
    #expect(
      document.value == .object(["a": .string("done"), "b": .array([.string("x"), .string("y")])]))
    // A number at the very end might have had more digits: dropped.
    #expect(try read(#"{"a": 1, "b": 0.9"#) == .object(["a": .number(1)]))
    // A key without its value is dropped.
    #expect(try read(#"{"a": 1, "b""#) == .object(["a": .number(1)]))
    #expect(try read(#"{"a": 1, "b":"#) == .object(["a": .number(1)]))
    #expect(try read(#"{"a": "x\u00"#) == .object([:]))
  }

  @Test func completeDocumentIsNotTruncated() throws {
    let document = try reader.document(from: #"{"a": 1} trailing prose"#)
    #expect(!document.isTruncated)
    #expect(document.endOffset == 8)
  }

  @Test func errorsCarryKindAndOffset() {
    #expect(throws: LenientJSONError(kind: .empty, offset: 3)) { try read("   ") }
    #expect(throws: LenientJSONError(kind: .empty, offset: 10)) { try read("// nothing") }
    #expect(throws: LenientJSONError(kind: .unexpectedCharacter("@"), offset: 0)) { try read("@") }
    #expect(throws: LenientJSONError(kind: .unexpectedCharacter("}"), offset: 10)) {
      try read("{carefully}")
    }
    let error = LenientJSONError(kind: .unexpectedCharacter("@"), offset: 4)
    #expect(error.description == "Unexpected character \"@\" at byte 4")
  }

  @Test func deepNestingIsRefusedNotOverflowed() {
    let deep = String(repeating: "[", count: 100_000)
    #expect(throws: LenientJSONError(kind: .tooDeep(limit: 128), offset: 128)) { try read(deep) }
    let deepObjects = String(repeating: "{\"a\":", count: 100_000)
    #expect(throws: LenientJSONError.self) { try read(deepObjects) }
    let shallow = LenientJSONReader(maximumDepth: 2)
    #expect(throws: LenientJSONError.self) { try shallow.value(from: "[[[1]]]") }
    #expect((try? shallow.value(from: "[[1]]")) == .array([.array([.number(1)])]))
  }

  @Test func brokenEscapesBecomeReplacementCharacters() throws {
    #expect(
      try read(#"["\uZZZZ", "\ud800x", "a\qb"]"#)
        == .array([.string("\u{FFFD}ZZZZ"), .string("\u{FFFD}x"), .string("aqb")]))
  }

  @Test func randomInputNeverCrashes() {
    var generator = SeededGenerator(seed: 42)
    let alphabet = Array("{}[]\"':,.-+0123456789eEtrufalsnN/\\*#“”‘’ \n\tabcé%")
    for _ in 0..<3000 {
      let length = Int.random(in: 0..<80, using: &generator)
      let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? " " })
      _ = try? reader.document(from: text)
    }
  }
}

/// A small deterministic generator (SplitMix64) so property tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
