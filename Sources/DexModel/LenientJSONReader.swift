/// A forgiving JSON reader for text written by language models and people.
///
/// Strict `JSONDecoder` fails on the small slips models make all the time. This reader accepts,
/// besides standard JSON:
/// - trailing and repeated commas, and missing commas between members or elements;
/// - single-quoted and typographically quoted (“…”, ‘…’) strings, raw newlines in strings;
/// - unquoted keys (`commonName: "Fox"`), `=` instead of `:`, and bare-word values
///   (`rarity: Rare`);
/// - `//`, `/* */` and `#` comments;
/// - Python's `True`, `False`, `None` (and `nil`, `undefined`); `NaN` and `Infinity` read as null;
/// - a `%` after a number (`87%` reads as 87);
/// - a closing bracket of the wrong kind, which closes the innermost open container;
/// - **truncation**: input cut off mid-value (a token limit) keeps every complete member and
///   element before the cut and closes the open arrays and objects. A scalar cut mid-way (a
///   half string, a number that might have had more digits) is dropped, not guessed.
///
/// It reads the first value in the input and ignores what follows it
/// (see ``Document/endOffset``). Work is linear in the input size, and nesting is bounded by
/// ``maximumDepth``, so hostile input cannot exhaust the stack.
public struct LenientJSONReader: Sendable {
  /// The result of reading: the value and how reading ended.
  public struct Document: Equatable, Hashable, Sendable {
    /// The value read.
    public var value: JSONValue
    /// Whether the input ended before the value was complete, so that containers were closed
    /// and a partial scalar dropped.
    public var isTruncated: Bool
    /// The UTF-8 byte offset just after the value.
    public var endOffset: Int
  }

  /// The deepest nesting of arrays and objects accepted before reading fails with
  /// ``LenientJSONError/Kind/tooDeep(limit:)``.
  public var maximumDepth: Int

  /// Creates a reader; the default depth is far beyond any real model reply.
  public init(maximumDepth: Int = 128) {
    self.maximumDepth = max(1, maximumDepth)
  }

  /// Reads the first JSON value in `text`.
  public func value(from text: String) throws(LenientJSONError) -> JSONValue {
    try document(from: text).value
  }

  /// Reads the first JSON value in `text` and reports whether it was truncated.
  public func document(from text: String) throws(LenientJSONError) -> Document {
    try document(from: Array(text.utf8), at: 0)
  }

  /// Reads the value starting at byte `start` (after any whitespace or comments).
  func document(from bytes: [UInt8], at start: Int) throws(LenientJSONError) -> Document {
    var parser = LenientJSONParser(bytes: bytes, position: start, maximumDepth: maximumDepth)
    guard let value = try parser.parseValue(depth: 0) else {
      throw LenientJSONError(kind: .empty, offset: parser.position)
    }
    return Document(value: value, isTruncated: parser.isTruncated, endOffset: parser.position)
  }
}
