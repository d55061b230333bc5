/// The recursive-descent engine behind ``LenientJSONReader``; works on UTF-8 bytes.
struct LenientJSONParser {
  let bytes: [UInt8]
  var position: Int
  let maximumDepth: Int
  /// Set once the input ended inside a value.
  var isTruncated = false

  init(bytes: [UInt8], position: Int, maximumDepth: Int) {
    self.bytes = bytes
    self.position = position
    self.maximumDepth = maximumDepth
  }

  private var atEnd: Bool { position >= bytes.count }

  private func byte(at offset: Int = 0) -> UInt8? {
    let index = position + offset
    return index < bytes.count ? bytes[index] : nil
  }

  // MARK: Trivia

  /// Skips whitespace (ASCII and common Unicode spaces) and comments.
  mutating func skipTrivia() {
    while let current = byte() {
      switch current {
      case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C:
        position += 1
      case 0xC2 where byte(at: 1) == 0xA0:  // no-break space
        position += 2
      case 0xEF where byte(at: 1) == 0xBB && byte(at: 2) == 0xBF:  // byte order mark
        position += 3
      case 0xE2 where byte(at: 1) == 0x80 && [0x8B, 0xA8, 0xA9, 0xAF].contains(byte(at: 2)):
        position += 3  // zero-width space, line/paragraph separators, narrow no-break space
      case UInt8(ascii: "/") where byte(at: 1) == UInt8(ascii: "/"):
        skipLine()
      case UInt8(ascii: "#"):
        skipLine()
      case UInt8(ascii: "/") where byte(at: 1) == UInt8(ascii: "*"):
        position += 2
        while let next = byte(), !(next == UInt8(ascii: "*") && byte(at: 1) == UInt8(ascii: "/")) {
          position += 1
        }
        position = min(position + 2, bytes.count)
      default:
        return
      }
    }
  }

  private mutating func skipLine() {
    while let next = byte(), next != 0x0A, next != 0x0D { position += 1 }
  }

  // MARK: Values

  /// Parses one value; `nil` when the input ended before a complete scalar.
  mutating func parseValue(depth: Int) throws(LenientJSONError) -> JSONValue? {
    skipTrivia()
    guard let current = byte() else {
      isTruncated = true
      return nil
    }
    switch current {
    case UInt8(ascii: "{"):
      return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["):
      return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""), UInt8(ascii: "'"):
      return parseString().map(JSONValue.string)
    case 0xE2 where quoteLength() > 0:
      return parseString().map(JSONValue.string)
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
      UInt8(ascii: "."):
      return try parseNumber()
    default:
      if isBareWordStart(current) { return parseBareWord() }
      throw unexpected()
    }
  }

  private mutating func parseObject(depth: Int) throws(LenientJSONError) -> JSONValue {
    guard depth <= maximumDepth else {
      throw LenientJSONError(kind: .tooDeep(limit: maximumDepth), offset: position)
    }
    position += 1  // {
    var members: [String: JSONValue] = [:]
    while true {
      skipTrivia()
      guard let current = byte() else {
        isTruncated = true
        return .object(members)
      }
      switch current {
      case UInt8(ascii: "}"):
        position += 1
        return .object(members)
      case UInt8(ascii: "]"):
        return .object(members)  // wrong closer: close this object, let the array take it
      case UInt8(ascii: ","), UInt8(ascii: ";"):
        position += 1
        continue
      default:
        break
      }
      guard let key = try parseKey() else { return .object(members) }
      skipTrivia()
      guard let separator = byte() else {
        isTruncated = true
        return .object(members)
      }
      guard separator == UInt8(ascii: ":") || separator == UInt8(ascii: "=") else {
        throw unexpected()
      }
      position += 1
      guard let value = try parseValue(depth: depth) else { return .object(members) }
      members[key] = value
    }
  }

  private mutating func parseArray(depth: Int) throws(LenientJSONError) -> JSONValue {
    guard depth <= maximumDepth else {
      throw LenientJSONError(kind: .tooDeep(limit: maximumDepth), offset: position)
    }
    position += 1  // [
    var elements: [JSONValue] = []
    while true {
      skipTrivia()
      guard let current = byte() else {
        isTruncated = true
        return .array(elements)
      }
      switch current {
      case UInt8(ascii: "]"):
        position += 1
        return .array(elements)
      case UInt8(ascii: "}"):
        return .array(elements)  // wrong closer: close this array, let the object take it
      case UInt8(ascii: ","):
        position += 1
        continue
      default:
        break
      }
      guard let element = try parseValue(depth: depth) else { return .array(elements) }
      elements.append(element)
    }
  }

  private mutating func parseKey() throws(LenientJSONError) -> String? {
    guard let current = byte() else {
      isTruncated = true
      return nil
    }
    if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") || quoteLength() > 0 {
      return parseString()
    }
    guard isBareWordStart(current) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(current)
    else { throw unexpected() }
    let start = position
    while let next = byte(), !Self.keyTerminators.contains(next) { position += 1 }
    if atEnd {
      isTruncated = true
      return nil
    }
    return trimmedString(bytes[start..<position])
  }

  private static let keyTerminators: Set<UInt8> = Set(":=,{}[]\"'\n\r".utf8)
  private static let bareWordTerminators: Set<UInt8> = Set(",}]\n\r".utf8)

  private func isBareWordStart(_ value: UInt8) -> Bool {
    switch value {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "_"), UInt8(ascii: "$"):
      true
    default:
      value >= 0x80 && quoteLength() == 0
    }
  }

  private mutating func parseBareWord() -> JSONValue? {
    let start = position
    while let next = byte(), !Self.bareWordTerminators.contains(next) {
      if next == UInt8(ascii: "/"),
        byte(at: 1) == UInt8(ascii: "/") || byte(at: 1) == UInt8(ascii: "*")
      {
        break
      }
      position += 1
    }
    let word = trimmedString(bytes[start..<position])
    switch word {
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    case "null", "None", "nil", "undefined", "NULL", "Null", "NaN", "Infinity":
      return .null
    default:
      if atEnd {
        isTruncated = true
        return nil  // a bare word cut by the end may be incomplete
      }
      return .string(word)
    }
  }

  private mutating func parseNumber() throws(LenientJSONError) -> JSONValue? {
    let start = position
    while let next = byte(), Self.numberBytes.contains(next) { position += 1 }
    if atEnd {
      isTruncated = true
      return nil  // more digits may have followed
    }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    if byte() == UInt8(ascii: "%") { position += 1 }
    if text == "-Infinity" || text == "+Infinity" { return .null }
    let unsigned = text.hasPrefix("+") ? String(text.dropFirst()) : text
    guard let number = Double(unsigned) else {
      position = start
      if isBareWordStart(bytes[start]) { return parseBareWord() }
      throw unexpected()
    }
    return number.isFinite ? .number(number) : .null
  }

  private static let numberBytes: Set<UInt8> = Set("0123456789+-.eEInfinty".utf8)

  // MARK: Strings

  /// The byte length of a typographic quote (“ ” ‘ ’) at the current position, or 0.
  private func quoteLength() -> Int {
    guard byte() == 0xE2, byte(at: 1) == 0x80, let third = byte(at: 2) else { return 0 }
    return (0x98...0x9D).contains(third) && third != 0x9A && third != 0x9B ? 3 : 0
  }

  /// Parses a quoted string; `nil` when the input ends before the closing quote.
  private mutating func parseString() -> String? {
    // Which bytes close this string: the same ASCII quote; for “ only ”, for ‘ only ’ (so a
    // nested “quote” stays content); a string opened with a closing mark (”…” or ’…’) closes
    // on either mark of its family.
    let opener = bytes[position]
    var closingTypographic: ClosedRange<UInt8>? = nil
    if opener == 0xE2, let third = byte(at: 2) {
      switch third {
      case 0x9C: closingTypographic = 0x9D...0x9D
      case 0x9D: closingTypographic = 0x9C...0x9D
      case 0x98: closingTypographic = 0x99...0x99
      default: closingTypographic = 0x98...0x99
      }
      position += 3
    } else {
      position += 1
    }
    var buffer: [UInt8] = []
    while let current = byte() {
      if let closing = closingTypographic {
        if current == 0xE2, byte(at: 1) == 0x80, let third = byte(at: 2), closing.contains(third) {
          position += 3
          return String(decoding: buffer, as: UTF8.self)
        }
      } else if current == opener {
        position += 1
        return String(decoding: buffer, as: UTF8.self)
      }
      if current == UInt8(ascii: "\\") {
        guard let escaped = byte(at: 1) else { break }
        position += 2
        switch escaped {
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "u"):
          guard let scalar = parseUnicodeEscape() else {
            if atEnd { break }
            buffer.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD for a broken escape
            continue
          }
          buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
        default: buffer.append(escaped)  // \" \\ \/ \' and unknown escapes keep the character
        }
        continue
      }
      buffer.append(current)
      position += 1
    }
    isTruncated = true
    position = bytes.count
    return nil
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

  // MARK: Helpers

  private func trimmedString(_ slice: ArraySlice<UInt8>) -> String {
    var lower = slice.startIndex
    var upper = slice.endIndex
    while lower < upper, slice[lower] == 0x20 || slice[lower] == 0x09 { lower += 1 }
    while upper > lower, slice[upper - 1] == 0x20 || slice[upper - 1] == 0x09 { upper -= 1 }
    return String(decoding: slice[lower..<upper], as: UTF8.self)
  }

  private func unexpected() -> LenientJSONError {
    guard position < bytes.count else {
      return LenientJSONError(kind: .empty, offset: position)
    }
    let scalarEnd = min(bytes.count, position + 4)
    let character =
      String(decoding: bytes[position..<scalarEnd], as: UTF8.self).first ?? "\u{FFFD}"
    return LenientJSONError(kind: .unexpectedCharacter(character), offset: position)
  }
}
