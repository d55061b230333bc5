import DexTestSupport
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
    // A closing mark followed by another one is text: the nested quote stays balanced.
    #expect(try read("{“name”: “Red “Fox””}")["name"] == .string("Red “Fox”"))
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

  @Test func truncationKeepsWhatWasSent() throws {
    let document = try reader.document(from: #"{"a": "done", "b": ["x", "y", "partial str"#)
    #expect(document.isTruncated)
    #expect(
      document.value
        == .object([
          "a": .string("done"), "b": .array([.string("x"), .string("y"), .string("partial str")]),
        ]))
    #expect(document.cutPath == [.key("b"), .index(2)])
    // A number cut at the end is kept; so is a bare word.
    let number = try reader.document(from: #"{"a": 1, "b": 0.9"#)
    #expect(number.value == .object(["a": .number(1), "b": .number(0.9)]))
    #expect(number.cutPath == [.key("b")])
    #expect(try read("[105,12") == .array([.number(105), .number(12)]))
    // A lone sign at the end is no value, so nothing was cut (a fuzzer finding).
    let sign = try reader.document(from: #"{"a": [1, +"#)
    #expect(sign.value == .object(["a": .array([.number(1)])]))
    #expect(sign.isTruncated)
    #expect(sign.cutPath == nil)
    #expect(try read("{rarity: Unc") == .object(["rarity": .string("Unc")]))
    // A cut string loses its trailing spaces and a cut escape; one with nothing sent is dropped.
    #expect(try read(#"{"a": "x\u00"#) == .object(["a": .string("x")]))
    #expect(try read(#"{"a": "val\n"#) == .object(["a": .string("val")]))
    #expect(try read(#"{"a": 1, "b": ""#) == .object(["a": .number(1)]))
    // A key without its value is dropped.
    #expect(try read(#"{"a": 1, "b""#) == .object(["a": .number(1)]))
    #expect(try read(#"{"a": 1, "b":"#) == .object(["a": .number(1)]))
    #expect(try read(#"{"a": 1, "b"#) == .object(["a": .number(1)]))
    // A top-level scalar that reaches the end is complete, as in strict JSON.
    let top = try reader.document(from: "42")
    #expect(top.value == .number(42))
    #expect(!top.isTruncated)
    #expect(top.cutPath == nil)
  }

  @Test func innerQuotesFollowedByTextAreText() throws {
    #expect(
      try read(#"{"summary": "Often called the "king of fruits" in South Asia."}"#)
        == .object(["summary": .string(#"Often called the "king of fruits" in South Asia."#)]))
    // In array elements and keys too.
    #expect(
      try read(#"["lorem "ipsum" sic", "b"]"#)
        == .array([.string(#"lorem "ipsum" sic"#), .string("b")]))
    #expect(try read(#"{"k"e"y": "value"}"#) == .object([#"k"e"y"#: .string("value")]))
    #expect(try read("{'a': 'It's mine'}") == .object(["a": .string("It's mine")]))
    // A quote followed by a comma, a closer, a colon or another string still closes.
    #expect(
      try read(#"{"a": "x" "b": "y", "c": ["p" "q"]}"#)
        == .object([
          "a": .string("x"), "b": .string("y"), "c": .array([.string("p"), .string("q")]),
        ]))
    #expect(try read(#"{"a": "link("x")" }"#) == .object(["a": .string(#"link("x")"#)]))
    #expect(try read(#"{"a": "v" // note"# + "\n}") == .object(["a": .string("v")]))
  }

  @Test func doubledQuotesOpenAndCloseAString() throws {
    #expect(
      try read(#"{""answer"":[{""traits"":''Female 60+'',""n"":""5""}]}"#)
        == .object([
          "answer": .array([.object(["traits": .string("Female 60+"), "n": .string("5")])])
        ]))
    #expect(try read(#"{"key": ""value"}"#) == .object(["key": .string("value")]))
    #expect(try read(#"{"": "", "b": ""}"#) == .object(["": .string(""), "b": .string("")]))
  }

  @Test func missingValuesReadAsEmptyStrings() throws {
    #expect(
      try read(#"{"a": , "b": 1, "c": }"#)
        == .object(["a": .string(""), "b": .number(1), "c": .string("")]))
  }

  @Test func ellipsesAreSkipped() throws {
    #expect(
      try read(#"{"a": ["Sweet", "Tropical", ...], …, "b": [1, … , 2], ...}"#)
        == .object([
          "a": .array([.string("Sweet"), .string("Tropical")]),
          "b": .array([.number(1), .number(2)]),
        ]))
    // A quoted "..." is a string.
    #expect(try read("[1, '...']") == .array([.number(1), .string("...")]))
  }

  @Test func unclosedStringsEndWhereTheStructureResumes() throws {
    // Before the next key, after the array it was in.
    #expect(
      try read(#"{"category": ["Mint family], "rarity": "Rare"}"#)
        == .object(["category": .array([.string("Mint family")]), "rarity": .string("Rare")]))
    #expect(
      try read(#"{"city": "New York, "state": "NY"}"#)
        == .object(["city": .string("New York"), "state": .string("NY")]))
    #expect(
      try read("{\"a\": \"one\n  \"b\": 2}") == .object(["a": .string("one"), "b": .number(2)]))
    // At the end of input, at the first closer the string did not open; a key at its colon.
    let closed = try reader.document(from: #"{"key": ["value]}"#)
    #expect(closed.value == .object(["key": .array([.string("value")])]))
    #expect(!closed.isTruncated)
    #expect(try read(#"{"a": "x {y} z}"#) == .object(["a": .string("x {y} z")]))
    #expect(try read(#"{"key:value}"#) == .object(["key": .string("value")]))
    #expect(try read(#"{"key:"value"}"#) == .object(["key": .string("value")]))
  }

  @Test func numbersAsModelsWriteThem() throws {
    let text =
      #"{"a": 82_461_110, "b": 1_234.5_6, "c": 1., "d": 1e, "e": 1/3, "f": 10-20, "#
      + #""g": 1.1.1, "h": 2nd}"#
    #expect(
      try read(text)
        == .object([
          "a": .number(82_461_110), "b": .number(1234.56), "c": .number(1), "d": .number(1),
          "e": .string("1/3"), "f": .string("10-20"), "g": .string("1.1.1"), "h": .string("2nd"),
        ]))
    #expect(try read("[- ") == .array([]))
  }

  @Test func tuplesReadAsArrays() throws {
    #expect(
      try read("{'a': (1, 'x'), 'b': [(1, 2)]}")
        == .object([
          "a": .array([.number(1), .string("x")]),
          "b": .array([.array([.number(1), .number(2)])]),
        ]))
  }

  @Test func strayTextBetweenMembersIsDropped() throws {
    #expect(
      try read(#"{"a": true, COMMENT "b": "data" }"#)
        == .object(["a": .bool(true), "b": .string("data")]))
    #expect(
      try read(#"{"a" "x", "b": abc", "c": 2"}"#)
        == .object(["a": .string("x"), "b": .string("abc"), "c": .number(2)]))
    #expect(try read(#"{ "a" : "{ b": {} }" }"#) == .object(["a": .string("{ b")]))
    #expect(try read("{carefully}") == .object([:]))
    #expect(
      try read(#"{"a": {"b": 1 # note }, "c": 2 }"#)
        == .object(["a": .object(["b": .number(1)]), "c": .number(2)]))
  }

  @Test func missingBracketsAndBraces() throws {
    // A string followed by `:` in an array: a missing `{`, or after scalars a missing `]`.
    #expect(try read(#"["key": "value"}]"#) == .array([.object(["key": .string("value")])]))
    #expect(
      try read(#"{"facts": ["a", "b", "rarity": "Rare"}"#)
        == .object(["facts": .array([.string("a"), .string("b")]), "rarity": .string("Rare")]))
    // A `}` in an array closes the array; a `]` in an object closes the object and the array.
    #expect(
      try read(#"{"a": ["x", "y"}, "b": 1}"#)
        == .object(["a": .array([.string("x"), .string("y")]), "b": .number(1)]))
    #expect(
      try read(#"{"a": [{"k": "v"], "b": 1}"#)
        == .object(["a": .array([.object(["k": .string("v")])]), "b": .number(1)]))
    // A `{` where a key belongs starts the next object.
    #expect(
      try read(#"[{"a": 1, {"b": 2}]"#)
        == .array([.object(["a": .number(1)]), .object(["b": .number(2)])]))
    // Stray arrays after a member's array join it.
    #expect(
      try read(#"{"k": ["a"], ["b"], ["c"], "d": 1}"#)
        == .object(["k": .array([.string("a"), .string("b"), .string("c")]), "d": .number(1)]))
    // An object closed too early takes the members that follow it.
    #expect(try read(#"{"a": 1}, "b": 2}"#) == .object(["a": .number(1), "b": .number(2)]))
    #expect(try read(#"{"a": 1}, {"b": 2}"#) == .object(["a": .number(1)]))
  }

  @Test func codeFencesEndTheReply() throws {
    #expect(
      try read(#"{"key": "value, value2"```"#) == .object(["key": .string("value, value2")]))
    #expect(try read("[1, 2\n```\nmore") == .array([.number(1), .number(2)]))
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
    #expect(throws: LenientJSONError(kind: .unexpectedCharacter("@"), offset: 2)) {
      try read("{ @ }")
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

  /// A broken `\u` escape reads as U+FFFD; an unknown escape keeps its backslash.
  @Test func brokenEscapesBecomeReplacementCharacters() throws {
    #expect(
      try read(#"["\uZZZZ", "\ud800x", "a\qb"]"#)
        == .array([.string("\u{FFFD}ZZZZ"), .string("\u{FFFD}x"), .string(#"a\qb"#)]))
  }

  @Test(.timeLimit(.minutes(5)))
  func hostileRepairInputsStayLinear() {
    // Each repair looks ahead or back a bounded amount, so these finish in linear time; a
    // quadratic rescan of 100 KB would take minutes.
    let cases: [(String, String, String)] = [
      ("{\"a\": \"", "x, \"y", "\": 1}"), ("[", "\"a], \"", "\": 1"), ("{", "\"k:\"", ""),
      ("{\"a\": [1]", ", [1]", "}"), ("[\"", ", \"a\":", ""), ("{\"a\": \"", "x, \"y\": \"", ""),
      ("[", "\"a\" \"", ""), ("{\"k\": \"", "}, \"", ":"),
    ]
    for (head, unit, tail) in cases {
      let text = head + String(repeating: unit, count: 100_000 / unit.utf8.count) + tail
      #expect(text.utf8.count > 95_000)
      _ = try? reader.document(from: text)
    }
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
