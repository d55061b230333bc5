/// A forgiving JSON reader for text written by language models and people.
///
/// Strict `JSONDecoder` fails on the small slips models make all the time. Valid JSON reads
/// exactly as a strict parser reads it; besides, each of these rules repairs one slip:
/// - trailing and repeated commas are ignored, and a missing comma between members or
///   elements is supplied;
/// - single-quoted and typographically quoted (“…”, ‘…’) strings read like double-quoted
///   ones, and raw line breaks in strings are kept;
/// - an unquoted key (`commonName: "Fox"`), `=` instead of `:`, and a bare-word value
///   (`rarity: Rare`, running to the next `,`, line break, quote or unopened closer) are read;
/// - a quote inside a string that is not followed, after spaces, by `,` `:` `}` `]` `)`, the
///   end, a comment, a code fence or another string's opening quote is part of the text
///   (`"the "king" of fruits"`), in keys and array elements too (json_repair's rule);
/// - a doubled quote (`""word""`) opens and closes a string like a single one;
/// - a string whose closing quote was left out ends where the structure resumes: before
///   `, "key":` or `], "key":` when a later quote turns out to close a key, at the first `}` or
///   `]` it did not open when the input ends, and a key at its first `:`;
/// - a missing value (`"key": ,` or `"key": }`) reads as an empty string `""`;
/// - `...` or `…` standing for an element or a member is skipped;
/// - `//`, `/* */` and `#` comments are skipped; a `#` comment ends at its line's end or
///   before a `}` or `]`;
/// - Python's `True`, `False`, `None` (and `nil`, `undefined`, any-case `TRUE`/`NULL`) are
///   literals; `NaN` and `Infinity` read as null;
/// - `_` between digits is dropped (`82_461_110`), a `%` after a number is ignored (`87%`
///   reads as 87), `1.` and `1e` read as 1, and text that only starts like a number (`1/3`,
///   `10-20`, `1.1.1`) reads as a string;
/// - a Python tuple `(1, 2)` reads as an array;
/// - a closing bracket of the wrong kind closes the innermost container: a `}` in an array
///   closes the array; a `]` in an object closes the object and then the array around it;
/// - in an array, a string followed by `:` starts an object whose `{` was left out, except
///   after scalar elements of a member's array, where it ends the array whose `]` was left
///   out (`["a", "b", "rarity": "Rare"}`);
/// - a quoted key missing its `:` takes the value that follows; a stray word or a key with no
///   value between members, a stray `:` and a container where a key belongs are dropped;
/// - an unknown escape (`\q`) keeps its backslash; a broken `\u` escape reads as U+FFFD;
/// - an object closed too early at the top level (`{"a": 1}, "b": 2}`) takes the members that
///   follow it;
/// - **truncation**: input cut off mid-value (a token limit) keeps every member and element
///   sent and closes the open arrays and objects. A string cut mid-way is kept as sent, and so
///   is a number or a bare word cut at the end; ``Document/isTruncated`` says so. Only a key
///   cut before its value is dropped.
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
    /// and a scalar cut mid-way was kept as sent.
    public var isTruncated: Bool
    /// The UTF-8 byte offset just after the value.
    public var endOffset: Int
    /// Where the scalar the input cut off sits, from the root; `nil` when none was cut.
    var cutPath: [PathStep]? = nil
    /// The furthest byte reading looked at: past ``endOffset`` when a string without its closing
    /// quote was read to the end of the input and then ended earlier. What reading cost.
    var scannedEnd = 0
    /// How many bytes reading stepped back over in all (bounded: see the parser's budget).
    var steppedBack = 0
  }

  /// One step from a container to a value inside it.
  enum PathStep: Hashable, Sendable {
    /// An object member.
    case key(String)
    /// An array element.
    case index(Int)
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
    guard let value = try parser.parseDocument() else {
      throw LenientJSONError(kind: .empty, offset: parser.position)
    }
    return Document(
      value: value, isTruncated: parser.isTruncated, endOffset: parser.position,
      cutPath: parser.cutPath.map { Array($0.reversed()) },
      scannedEnd: max(parser.furthest, parser.position), steppedBack: parser.steppedBack)
  }
}
