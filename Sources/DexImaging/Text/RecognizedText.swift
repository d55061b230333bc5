/// The text a ``TextRecognizing`` conformance read in one image: its lines in reading order.
///
/// It exists so that callers get both the structure (lines, boxes, confidences, for highlighting
/// or filtering) and the plain string (for search, copying and export) from one value.
public struct RecognizedText: Sendable, Hashable, Codable {
  /// The recognised lines, top to bottom in reading order.
  public var lines: [RecognizedTextLine]

  /// Creates a result from its lines.
  public init(lines: [RecognizedTextLine]) {
    self.lines = lines
  }

  /// The lines' text joined with newlines: what search, copy and `.txt` export use.
  public var string: String {
    lines.map(\.text).joined(separator: "\n")
  }

  /// Whether no line was recognised.
  public var isEmpty: Bool { lines.isEmpty }
}
