import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexModel

/// Valid JSON must read exactly as a strict parser reads it, whatever the repairs do.
@Suite("Lenient JSON properties", .offCooperativePool)
struct LenientJSONPropertyTests {
  /// Writes a random valid JSON document with random spacing and escaping, drawing strings
  /// from pieces that look like the slips the reader repairs (quotes, brackets, dots, `#`).
  struct DocumentWriter {
    var generator: SeededGenerator

    static let pieces = [
      "Fox", " ", "\"", "\\", "/", "'", "“", "”", ",", ":", "}", "]", "{", "[", "(", ")", "...",
      "…",
      "#", "//", "/*", "```", "é", "🦊", "\n", "\t", "\u{1}", "True", "null", "1_0", "1/3", "%",
      "=", ";",
    ]

    mutating func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }

    mutating func space() -> String {
      ["", "", " ", "\n  ", "\t", " \r\n"][random(0..<6)]
    }

    mutating func string() -> String {
      var text = "\""
      for _ in 0..<random(0..<6) {
        let piece = Self.pieces[random(0..<Self.pieces.count)]
        for scalar in piece.unicodeScalars {
          switch scalar {
          case "\"": text += "\\\""
          case "\\": text += "\\\\"
          case "\n": text += "\\n"
          case "\t": text += random(0..<2) == 0 ? "\\t" : "\\u0009"
          case "\r": text += "\\r"
          case "/": text += random(0..<3) == 0 ? "\\/" : "/"
          case let scalar where scalar.value < 0x20:
            text += String(format: "\\u%04x", scalar.value)
          case let scalar where scalar.value > 0xFFFF && random(0..<2) == 0:
            for unit in String(scalar).utf16 { text += String(format: "\\u%04X", unit) }
          default: text.unicodeScalars.append(scalar)
          }
        }
      }
      return text + "\""
    }

    mutating func number() -> String {
      let sign = random(0..<3) == 0 ? "-" : ""
      let integer = random(0..<3) == 0 ? "0" : String(random(1..<100_000))
      let fraction = random(0..<2) == 0 ? "" : "." + String(random(0..<1000))
      // Foundation's JSONDecoder rejects a bare `0` before an exponent (`0e1`, valid JSON), so
      // exponents follow other numbers only.
      guard random(0..<4) == 0, integer != "0" || !fraction.isEmpty else {
        return sign + integer + fraction
      }
      let exponent =
        ["e", "E"][random(0..<2)] + ["", "+", "-"][random(0..<3)]
        + String(random(0..<20))
      return sign + integer + fraction + exponent
    }

    mutating func value(depth: Int) -> String {
      switch random(0..<(depth > 4 ? 5 : 7)) {
      case 0: return string()
      case 1: return number()
      case 2: return ["true", "false", "null"][random(0..<3)]
      case 3, 4: return string()
      case 5:
        let count = random(0..<5)
        let elements = (0..<count).map { _ in space() + value(depth: depth + 1) + space() }
        return "[" + (count == 0 ? space() : elements.joined(separator: ",")) + "]"
      default:
        var keys = Set<String>()
        var members: [String] = []
        for _ in 0..<random(0..<5) {
          let key = string()
          guard keys.insert(key).inserted else { continue }  // strict readers differ on repeats
          members.append(
            space() + key + space() + ":" + space() + value(depth: depth + 1) + space())
        }
        return "{" + (members.isEmpty ? space() : members.joined(separator: ",")) + "}"
      }
    }
  }

  @Test func validJSONReadsExactlyAsAStrictParserReadsIt() throws {
    var writer = DocumentWriter(generator: SeededGenerator(seed: 2027))
    let reader = LenientJSONReader()
    var compared = 0
    for _ in 0..<3000 {
      let text = writer.space() + writer.value(depth: 0) + writer.space()
      let strict = try #require(
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), "\(text)")
      let document = try reader.document(from: text)
      #expect(document.value == strict, "\(text)")
      #expect(!document.isTruncated, "\(text)")
      #expect(document.cutPath == nil, "\(text)")
      compared += 1
    }
    #expect(compared == 3000)
  }
}
