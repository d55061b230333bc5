/// The recursive-descent engine behind ``LenientJSONReader``; works on UTF-8 bytes.
///
/// Strings, numbers and bare words are in `LenientJSONParser+Scalars.swift`. Every repair only
/// applies where strict JSON would have failed, so valid JSON reads as a strict parser reads it.
struct LenientJSONParser {
  /// Where a value sits; decides which bytes can end a string or a bare word.
  enum Role {
    /// The document itself, outside any container.
    case top
    /// An object's key.
    case key
    /// An object member's value.
    case member
    /// An array element.
    case element
  }

  let bytes: [UInt8]
  var position: Int
  let maximumDepth: Int
  /// Set once the input ended inside a value.
  var isTruncated = false
  /// Set (to an empty path) when the input ended inside a scalar inside a container; each
  /// container appends its step as it returns, so it ends up leaf-first.
  var cutPath: [LenientJSONReader.PathStep]? = nil
  /// Whether a `)` after a quote closes the string: true for the elements of a tuple.
  var closesOnParenthesis = false
  /// The furthest byte looked at (see ``LenientJSONReader/Document/scannedEnd``).
  var furthest = 0
  /// How many bytes reading may still step back over, in all: a string without its closing
  /// quote is read to the end of the input before it ends at an earlier `}` or `:`, and every
  /// such string would read the rest of the input again. Past this, such a string keeps the
  /// rest of the input instead, so that work stays linear in the input's size.
  var backtrackBudget: Int
  /// The bytes stepped back over so far.
  var steppedBack = 0

  init(bytes: [UInt8], position: Int, maximumDepth: Int) {
    self.bytes = bytes
    self.position = position
    self.maximumDepth = maximumDepth
    self.backtrackBudget = 4 * max(bytes.count - position, 0) + 65_536
  }

  /// Whether reading may step back from `position` to `mark`, spending the distance if so.
  mutating func mayStepBack(to mark: Int) -> Bool {
    furthest = max(furthest, position)
    let distance = position - mark
    guard distance <= backtrackBudget else { return false }
    backtrackBudget -= distance
    steppedBack += distance
    return true
  }

  var atEnd: Bool { position >= bytes.count }

  func byte(at offset: Int = 0) -> UInt8? {
    let index = position + offset
    return index < bytes.count ? bytes[index] : nil
  }

  // MARK: Trivia

  /// Skips whitespace (ASCII and common Unicode spaces) and comments. A `#` comment ends at
  /// the end of its line or before a `}` or `]` (`"a": 1 # note }` still closes the object).
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
        skipLine(stoppingAtClosers: false)
      case UInt8(ascii: "#"):
        skipLine(stoppingAtClosers: true)
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

  private mutating func skipLine(stoppingAtClosers: Bool) {
    while let next = byte(), next != 0x0A, next != 0x0D {
      if stoppingAtClosers, next == UInt8(ascii: "}") || next == UInt8(ascii: "]") { return }
      position += 1
    }
  }

  /// Skips a `...` or `…` placeholder standing for elided elements or members; false (and
  /// nothing skipped) when the dots are not followed by a separator, a closer or the end.
  mutating func skipEllipsis() -> Bool {
    var end = position
    if byte() == 0xE2, byte(at: 1) == 0x80, byte(at: 2) == 0xA6 {
      end += 3
    } else {
      while end < bytes.count, bytes[end] == UInt8(ascii: ".") { end += 1 }
      guard end - position >= 3 else { return false }
    }
    var next = end
    while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x09 { next += 1 }
    guard next == bytes.count || Self.separatorsAndClosers.contains(bytes[next]) else {
      return false
    }
    position = end
    return true
  }

  static let separatorsAndClosers: Set<UInt8> = Set(",}])\n\r".utf8)

  // MARK: Values

  /// Parses the document's value; `nil` when the input holds none. An object closed too early
  /// (`{"a": 1}, "b": 2}`) takes the members that follow it.
  mutating func parseDocument() throws(LenientJSONError) -> JSONValue? {
    guard let value = try parseValue(depth: 0, role: .top) else { return nil }
    guard case .object(var members) = value, !isTruncated else { return value }
    let end = position
    skipTrivia()
    if byte() == UInt8(ascii: ",") {
      position += 1
      skipTrivia()
      if byte() == UInt8(ascii: "\"") || byte() == UInt8(ascii: "'") {
        try parseMembers(into: &members, depth: 1)
        return .object(members)
      }
    }
    position = end
    return value
  }

  /// Parses one value. `nil` when there is none here: the input ended, or a lone sign or
  /// dot was skipped.
  mutating func parseValue(depth: Int, role: Role) throws(LenientJSONError) -> JSONValue? {
    skipTrivia()
    guard let current = byte() else {
      isTruncated = true
      return nil
    }
    switch current {
    case UInt8(ascii: "{"):
      try checkDepth(depth + 1)
      position += 1
      var members: [String: JSONValue] = [:]
      try parseMembers(into: &members, depth: depth + 1)
      return .object(members)
    case UInt8(ascii: "["), UInt8(ascii: "("):
      return try parseArray(depth: depth + 1, isMemberValue: role == .member)
    case UInt8(ascii: "\""), UInt8(ascii: "'"):
      return parseString(role: role).map(JSONValue.string)
    case 0xE2 where quoteLength() > 0:
      return parseString(role: role).map(JSONValue.string)
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
      UInt8(ascii: "."):
      return parseNumber(role: role)
    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
      // `"key": ,`: a value left out reads as an empty string.
      guard role == .member else { throw unexpected() }
      return .string("")
    default:
      if isBareWordStart(current) { return parseBareWord(role: role) }
      throw unexpected()
    }
  }

  private func checkDepth(_ depth: Int) throws(LenientJSONError) {
    guard depth <= maximumDepth else {
      throw LenientJSONError(kind: .tooDeep(limit: maximumDepth), offset: position)
    }
  }

  /// Reads members until the object's `}` (consumed), a `]` or `)` (left for the array
  /// around it), a `{` where a key belongs (its `}` was left out), a code fence or the end.
  mutating func parseMembers(
    into members: inout [String: JSONValue], depth: Int
  ) throws(LenientJSONError) {
    // The latest member's array stays apart until the next member, so that a stray array
    // after it (`"a": [1], [2]`) is appended in constant time per element.
    var open: (key: String, elements: [JSONValue])? = nil
    defer {
      if let open { members[open.key] = .array(open.elements) }
    }
    while true {
      skipTrivia()
      guard let current = byte() else {
        isTruncated = true
        return
      }
      switch current {
      case UInt8(ascii: "}"):
        position += 1
        return
      case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "{"):
        return  // wrong closer or a missing `}`: close this object, let the array take it
      case UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"):
        position += 1
        continue
      case UInt8(ascii: "["):
        // An array where a key belongs: its elements join the member array before it.
        closesOnParenthesis = false
        let stray = try parseValue(depth: depth, role: .element)
        if let key = open?.key, var elements = open?.elements, case .array(let extra)? = stray {
          if var path = cutPath, case .index(let index)? = path.last {
            path[path.count - 1] = .index(elements.count + index)
            path.append(.key(key))
            cutPath = path
          }
          open?.elements = []
          elements.append(contentsOf: extra)
          open?.elements = elements
        } else {
          cutPath = nil
        }
        continue
      case UInt8(ascii: "`") where byte(at: 1) == current && byte(at: 2) == current:
        isTruncated = true  // a closing code fence: the reply ended here
        return
      default:
        break
      }
      if skipEllipsis() { continue }
      guard let (key, quoted) = try parseKey() else { return }
      skipTrivia()
      guard let separator = byte() else {
        isTruncated = true
        return
      }
      if separator == UInt8(ascii: ":") || separator == UInt8(ascii: "=") {
        position += 1
      } else if !quoted || Self.separatorsAndClosers.contains(separator) {
        continue  // a stray word, or a key with no value: skipped
      }  // else a quoted key missing its colon: the value follows
      closesOnParenthesis = false
      guard let value = try parseValue(depth: depth, role: .member) else {
        if atEnd { return }
        continue
      }
      if let previous = open {
        members[previous.key] = .array(previous.elements)
        open = nil
      }
      if case .array(let elements) = value, cutPath == nil {
        members[key] = nil
        open = (key, elements)
      } else {
        cutPath?.append(.key(key))
        members[key] = value
      }
    }
  }

  /// Parses `[…]` or a Python tuple `(…)`; `]`, `}` and `)` all close it.
  private mutating func parseArray(
    depth: Int, isMemberValue: Bool
  ) throws(LenientJSONError) -> JSONValue {
    try checkDepth(depth)
    let isTuple = bytes[position] == UInt8(ascii: "(")
    position += 1
    var elements: [JSONValue] = []
    var onlyScalars = true
    while true {
      skipTrivia()
      guard let current = byte() else {
        isTruncated = true
        return .array(elements)
      }
      switch current {
      case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ")"):
        position += 1
        return .array(elements)
      case UInt8(ascii: ","):
        position += 1
        continue
      default:
        break
      }
      if skipEllipsis() { continue }
      if current == UInt8(ascii: "`"), byte(at: 1) == current, byte(at: 2) == current {
        isTruncated = true  // a closing code fence: the reply ended here
        return .array(elements)
      }
      let start = position
      closesOnParenthesis = isTuple
      guard var element = try parseValue(depth: depth, role: .element) else {
        if atEnd { return .array(elements) }
        continue
      }
      if case .string(let text) = element, cutPath == nil, isQuote(bytes[start]) {
        skipTrivia()
        if byte() == UInt8(ascii: ":") {
          if isMemberValue, onlyScalars, !elements.isEmpty {
            position = start  // a missing `]`: the string is the object's next key
            return .array(elements)
          }
          element = try parseObject(firstKey: text, depth: depth + 1)  // a missing `{`
        }
      }
      cutPath?.append(.index(elements.count))
      if case .array = element { onlyScalars = false }
      if case .object = element { onlyScalars = false }
      elements.append(element)
    }
  }

  /// An object whose `{` was left out, from the `:` after its first key.
  private mutating func parseObject(
    firstKey: String, depth: Int
  ) throws(LenientJSONError) -> JSONValue {
    try checkDepth(depth)
    position += 1  // :
    var members: [String: JSONValue] = [:]
    guard let value = try parseValue(depth: depth, role: .member) else { return .object(members) }
    cutPath?.append(.key(firstKey))
    members[firstKey] = value
    if cutPath == nil { try parseMembers(into: &members, depth: depth) }
    return .object(members)
  }

  /// A key and whether it was quoted; `nil` when the input ended inside it.
  private mutating func parseKey() throws(LenientJSONError) -> (String, Bool)? {
    guard let current = byte() else {
      isTruncated = true
      return nil
    }
    if isQuote(current) || quoteLength() > 0 {
      let key = parseString(role: .key)
      guard let key, cutPath == nil else {
        cutPath = nil  // a key cut by the end has no value: dropped
        isTruncated = true
        return nil
      }
      return (key, true)
    }
    guard isBareWordStart(current) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(current)
    else { throw unexpected() }
    let start = position
    while let next = byte(), !Self.keyTerminators.contains(next) { position += 1 }
    if atEnd {
      isTruncated = true
      return nil
    }
    return (trimmedString(bytes[start..<position]), false)
  }

  private static let keyTerminators: Set<UInt8> = Set(":=,{}[]\"'\n\r".utf8)

  func isQuote(_ value: UInt8) -> Bool {
    value == UInt8(ascii: "\"") || value == UInt8(ascii: "'")
  }

  func isBareWordStart(_ value: UInt8) -> Bool {
    switch value {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "_"), UInt8(ascii: "$"):
      true
    default:
      value >= 0x80 && quoteLength() == 0
    }
  }

  // MARK: Helpers

  func trimmedString(_ slice: ArraySlice<UInt8>) -> String {
    var lower = slice.startIndex
    var upper = slice.endIndex
    while lower < upper, slice[lower] == 0x20 || slice[lower] == 0x09 { lower += 1 }
    while upper > lower, slice[upper - 1] == 0x20 || slice[upper - 1] == 0x09 { upper -= 1 }
    return String(decoding: slice[lower..<upper], as: UTF8.self)
  }

  func unexpected() -> LenientJSONError {
    guard position < bytes.count else {
      return LenientJSONError(kind: .empty, offset: position)
    }
    let scalarEnd = min(bytes.count, position + 4)
    let character =
      String(decoding: bytes[position..<scalarEnd], as: UTF8.self).first ?? "\u{FFFD}"
    return LenientJSONError(kind: .unexpectedCharacter(character), offset: position)
  }
}
