/// Strings, numbers and bare words for ``LenientJSONParser``.
extension LenientJSONParser {
  /// A place in a string's text to end it at: the input offset and the decoded length there.
  private struct Mark {
    var position: Int
    var count: Int
    /// The byte at `position`.
    var byte: UInt8
    /// Whether it is a `}` or `]` closing nothing opened inside the string.
    var closesContainer = false
  }

  /// Which quote marks close a string.
  private enum Closer {
    /// The same ASCII quote as the opener.
    case ascii(UInt8)
    /// Typographic marks whose third byte (after `E2 80`) is in the range.
    case typographic(ClosedRange<UInt8>)
  }

  /// What a quote mark inside a string turns out to be.
  private enum QuoteReading {
    case closes
    /// Closes, but what follows is `:`: the string was a key.
    case closesBeforeColon
    case text
  }

  // MARK: Strings

  /// The byte length of a typographic quote (“ ” ‘ ’) at the current position, or 0.
  func quoteLength() -> Int {
    guard byte() == 0xE2, byte(at: 1) == 0x80, let third = byte(at: 2) else { return 0 }
    return (0x98...0x9D).contains(third) && third != 0x9A && third != 0x9B ? 3 : 0
  }

  /// The length of a closing quote of `closer` at `index`, or 0.
  private func closingQuoteLength(at index: Int, _ closer: Closer) -> Int {
    guard index < bytes.count else { return 0 }
    switch closer {
    case .ascii(let quote):
      return bytes[index] == quote ? 1 : 0
    case .typographic(let thirds):
      guard bytes[index] == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80,
        thirds.contains(bytes[index + 2])
      else { return 0 }
      return 3
    }
  }

  /// Reads what follows a quote mark that ends at `index` (json_repair's rule, extended): it
  /// closes the string when followed, after spaces, by the end, `,` `}` `]` `)` `:`, a
  /// comment, a code fence, or another quote that opens the next string (a missing comma).
  private func reading(afterQuoteEndingAt index: Int, _ closer: Closer) -> QuoteReading {
    var next = skippingSpaces(from: index)
    guard next < bytes.count else { return .closes }
    switch bytes[next] {
    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "`"),
      UInt8(ascii: "#"):
      return .closes
    case UInt8(ascii: ":"):
      return .closesBeforeColon
    case UInt8(ascii: "/"):
      return startsComment(at: next) ? .closes : .text
    case UInt8(ascii: ")"):
      return closesOnParenthesis ? .closes : .text
    default:
      let length = closingQuoteLength(at: next, closer)
      guard length > 0 else { return .text }
      // Another quote: it opens the next string, unless it is itself this string's end.
      next = skippingSpaces(from: next + length)
      guard next < bytes.count else { return .text }
      return Self.separatorsAndClosers.contains(bytes[next]) || bytes[next] == UInt8(ascii: ":")
        ? .text : .closes
    }
  }

  private func skippingSpaces(from index: Int) -> Int {
    var next = index
    while next < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[next]) { next += 1 }
    return next
  }

  /// Parses a quoted string at the current position; see ``LenientJSONReader`` for the rules.
  /// A string the input cut off is kept without its trailing spaces and marks the document as
  /// truncated; `nil` when the cut left nothing of it.
  mutating func parseString(role: Role) -> String? {
    // Which marks close this string: the same ASCII quote; for “ only ”, for ‘ only ’ (so a
    // nested “quote” stays text); a string opened with a closing mark (”…” or ’…’) closes on
    // either mark of its family.
    let closer: Closer
    if bytes[position] == 0xE2, let third = byte(at: 2) {
      switch third {
      case 0x9C: closer = .typographic(0x9D...0x9D)
      case 0x9D: closer = .typographic(0x9C...0x9D)
      case 0x98: closer = .typographic(0x99...0x99)
      default: closer = .typographic(0x98...0x99)
      }
      position += 3
    } else {
      closer = .ascii(bytes[position])
      position += 1
    }
    // `""word""`: a doubled quote opens (and then closes) the string.
    var doubled = false
    if role != .top, case .ascii = closer, closingQuoteLength(at: position, closer) == 1,
      reading(afterQuoteEndingAt: position + 1, closer) == .text
    {
      doubled = true
      position += 1
    }
    var buffer: [UInt8] = []
    var nesting = 0
    var firstOpenCloser: Mark? = nil
    var firstColon: Mark? = nil
    var resume: Mark? = nil
    var last: Mark? = nil
    var beforeLast: Mark? = nil
    var lineBreak: Mark? = nil

    func end(at mark: Mark, _ parser: inout LenientJSONParser) -> String {
      parser.position = mark.position
      var upper = min(mark.count, buffer.count)
      while upper > 0, [0x20, 0x09, 0x0A, 0x0D].contains(buffer[upper - 1]) { upper -= 1 }
      return String(decoding: buffer[0..<upper], as: UTF8.self)
    }

    let quoteByte: UInt8
    switch closer {
    case .ascii(let quote): quoteByte = quote
    case .typographic: quoteByte = 0xE2
    }
    while let current = byte() {
      if current != quoteByte, Self.plainStringBytes[Int(current)] {
        // A run of plain text: no quote, escape, bracket, `:`, `,` or line break. None of its
        // bytes is a place to end the string at, so it only moves the last significant mark.
        let runStart = position
        var significant = 0
        while position < bytes.count {
          let next = bytes[position]
          guard next != quoteByte, Self.plainStringBytes[Int(next)] else { break }
          if next != 0x20 && next != 0x09 { significant += 1 }
          position += 1
        }
        if significant > 0 {
          let plain = Mark(position: position - 1, count: buffer.count, byte: 0x61)
          beforeLast = significant > 1 ? plain : last
          last = plain
          lineBreak = nil
        }
        buffer.append(contentsOf: bytes[runStart..<position])
        continue
      }
      let quote = closingQuoteLength(at: position, closer)
      if quote > 0 {
        if role == .top {
          position += quote
          return String(decoding: buffer, as: UTF8.self)
        }
        if doubled, closingQuoteLength(at: position + quote, closer) > 0 {
          position += 2 * quote
          return String(decoding: buffer, as: UTF8.self)
        }
        switch reading(afterQuoteEndingAt: position + quote, closer) {
        case .closes:
          position += quote
          return String(decoding: buffer, as: UTF8.self)
        case .closesBeforeColon:
          if role != .key, let resume, mayStepBack(to: resume.position) {
            return end(at: resume, &self)
          }
          position += quote
          return String(decoding: buffer, as: UTF8.self)
        case .text:
          break
        }
        // The quote is text. Remember where the string would end if a later quote shows that
        // this one opened a key: `"New York, "state": …` or `["Mint family], "rarity": …`.
        if let mark = last {
          if role == .key, mark.byte == UInt8(ascii: ":"), mayStepBack(to: mark.position) {
            return end(at: mark, &self)  // `"key:"value"`: the key's own quote was left out
          }
          if mark.byte == UInt8(ascii: ",") {
            resume = beforeLast.flatMap { $0.closesContainer ? $0 : nil } ?? mark
          } else if let lineBreak {
            resume = lineBreak
          }
        }
        beforeLast = last
        last = Mark(position: position, count: buffer.count, byte: current)
        lineBreak = nil
        buffer.append(contentsOf: bytes[position..<position + quote])
        position += quote
        continue
      }
      if current == UInt8(ascii: "\\") {
        let mark = Mark(position: position, count: buffer.count, byte: current)
        guard appendEscape(to: &buffer) else { break }
        beforeLast = last
        last = mark
        lineBreak = nil
        continue
      }
      var mark = Mark(position: position, count: buffer.count, byte: current)
      switch current {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        nesting += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if nesting > 0 {
          nesting -= 1
        } else {
          mark.closesContainer = true
          if firstOpenCloser == nil { firstOpenCloser = mark }
        }
      case UInt8(ascii: ":"):
        if firstColon == nil { firstColon = mark }
      default:
        break
      }
      if current == 0x0A || current == 0x0D {
        if lineBreak == nil, last != nil { lineBreak = mark }
      } else if current != 0x20 && current != 0x09 {
        beforeLast = last
        last = mark
        lineBreak = nil
      }
      buffer.append(current)
      position += 1
    }
    // The input ended inside the string. A key ends at its first `:`; a string that holds
    // a `}` or `]` closing nothing of its own ends there (its closing quote was left out);
    // otherwise the input was cut and the string keeps all that was sent.
    if role == .key, let firstColon, mayStepBack(to: firstColon.position) {
      return end(at: firstColon, &self)
    }
    if role != .top, let firstOpenCloser, mayStepBack(to: firstOpenCloser.position) {
      return end(at: firstOpenCloser, &self)
    }
    position = bytes.count
    while let last = buffer.last, [0x20, 0x09, 0x0A, 0x0D].contains(last) { buffer.removeLast() }
    if buffer.isEmpty {
      isTruncated = true
      return nil
    }
    markCut(role: role)
    return String(decoding: buffer, as: UTF8.self)
  }

  /// The bytes that need no decision inside a string (besides its own quote byte).
  private static let plainStringBytes: [Bool] = (0...255).map { value in
    !Set("\\{}[]:,\n\r".utf8).contains(UInt8(value))
  }

  /// Appends the escape at the current `\`; false when the input ends inside it.
  private mutating func appendEscape(to buffer: inout [UInt8]) -> Bool {
    guard let escaped = byte(at: 1) else {
      buffer.append(UInt8(ascii: "\\"))  // a lone backslash at the cut is kept
      position += 1
      return false
    }
    position += 2
    switch escaped {
    case UInt8(ascii: "n"): buffer.append(0x0A)
    case UInt8(ascii: "t"): buffer.append(0x09)
    case UInt8(ascii: "r"): buffer.append(0x0D)
    case UInt8(ascii: "b"): buffer.append(0x08)
    case UInt8(ascii: "f"): buffer.append(0x0C)
    case UInt8(ascii: "u"):
      guard let scalar = parseUnicodeEscape() else {
        if atEnd { return false }  // a \u escape cut off is dropped
        buffer.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD for a broken escape
        return true
      }
      buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "'"):
      buffer.append(escaped)
    default:
      buffer.append(contentsOf: [UInt8(ascii: "\\"), escaped])  // unknown: kept as written
    }
    return true
  }

  /// Reads the four hex digits after `\u` (and a following low surrogate escape).
  private mutating func parseUnicodeEscape() -> Unicode.Scalar? {
    guard let high = readHex4() else { return nil }
    if (0xD800...0xDBFF).contains(high) {
      guard byte() == UInt8(ascii: "\\"), byte(at: 1) == UInt8(ascii: "u") else { return nil }
      let saved = position
      position += 2
      guard let low = readHex4(), (0xDC00...0xDFFF).contains(low) else {
        position = saved
        return nil
      }
      return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }
    return Unicode.Scalar(high)
  }

  private mutating func readHex4() -> UInt32? {
    guard position + 4 <= bytes.count else {
      position = bytes.count
      return nil
    }
    var value: UInt32 = 0
    for offset in 0..<4 {
      guard let digit = hexValue(bytes[position + offset]) else { return nil }
      value = value << 4 | digit
    }
    position += 4
    return value
  }

  private func hexValue(_ value: UInt8) -> UInt32? {
    switch value {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(value - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(value - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(value - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// Records that the input ended inside a scalar in a container (a top-level scalar that
  /// reaches the end is complete).
  private mutating func markCut(role: Role) {
    guard role != .top else { return }
    isTruncated = true
    cutPath = []
  }

  // MARK: Numbers and bare words

  /// Parses a number; text that only starts like one (`1/3`, `10-20`, `2nd`) reads as a
  /// string, and a lone sign or dot as nothing.
  mutating func parseNumber(role: Role) -> JSONValue? {
    let start = position
    while let next = byte(), Self.numberBytes.contains(next) { position += 1 }
    if let next = byte(), next != UInt8(ascii: "%"),
      !Self.numberEnds.contains(next) || (next == UInt8(ascii: "/") && !startsComment(at: position))
    {
      position = start
      return parseBareWord(role: role)  // `1/3`, `1notanumber`, `-Infinity`
    }
    let digits = bytes[start..<position].filter { $0 != UInt8(ascii: "_") }
    let end = position
    if byte() == UInt8(ascii: "%") { position += 1 }
    if !atEnd { skipStrayQuote(role: role) }
    guard let value = Self.number(from: digits, written: bytes[start..<end]) else { return nil }
    if atEnd { markCut(role: role) }
    return value
  }

  /// The number `digits` spell (`1.` and `1e` read as 1); the text as written when they spell
  /// none (`10-20`, `1.1.1`); `nil` for a lone sign or dot.
  private static func number(from digits: [UInt8], written: ArraySlice<UInt8>) -> JSONValue? {
    var text = String(decoding: digits, as: UTF8.self)
    if text.hasPrefix("+") { text.removeFirst() }
    if let number = Double(text) {
      return number.isFinite ? .number(number) : .null
    }
    while let last = text.last, "eE+-.".contains(last) { text.removeLast() }
    if let number = Double(text) {
      return number.isFinite ? .number(number) : .null
    }
    if text.isEmpty { return nil }
    return .string(String(decoding: written, as: UTF8.self))
  }

  func startsComment(at index: Int) -> Bool {
    index + 1 < bytes.count && bytes[index] == UInt8(ascii: "/")
      && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*"))
  }

  /// Skips the stray closing quote of a value whose opening quote was left out (`abc",`).
  private mutating func skipStrayQuote(role: Role) {
    guard role != .top, byte() == UInt8(ascii: "\"") else { return }
    let next = skippingSpaces(from: position + 1)
    if next == bytes.count || Self.separatorsAndClosers.contains(bytes[next]) { position += 1 }
  }

  private static let numberBytes: Set<UInt8> = Set("0123456789+-.eE_".utf8)
  /// What may follow a number: separators, closers, spaces, quotes, comments.
  private static let numberEnds: Set<UInt8> = Set(",}]):;\n\r\t \"'/#".utf8)

  /// Parses an unquoted word: a literal (`true`, `None`, `NaN`…) or text. The word runs to a
  /// `,`, a line break, a quote (in a container), a comment or a closer that it did not open.
  mutating func parseBareWord(role: Role) -> JSONValue {
    let start = position
    var nesting = 0
    scan: while let next = byte() {
      switch next {
      case UInt8(ascii: ","), 0x0A, 0x0D:
        break scan
      case UInt8(ascii: "\"") where role != .top:
        break scan
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        nesting += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if nesting == 0 { break scan }
        nesting -= 1
      case UInt8(ascii: "/") where startsComment(at: position):
        break scan
      default:
        break
      }
      position += 1
    }
    let word = trimmedString(bytes[start..<position])
    if atEnd { markCut(role: role) }
    skipStrayQuote(role: role)
    switch word {
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    case "null", "None", "nil", "undefined", "NULL", "Null", "NaN", "Infinity", "-Infinity",
      "+Infinity":
      return .null
    default:
      return .string(word)
    }
  }
}
