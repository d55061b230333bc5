import GRDB

/// The text recognised in one photo, as stored in the `recognizedText` table and shown in the
/// page's text list.
public struct TextEntry: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
  /// The table's name.
  public static let databaseTableName = "recognizedText"
  /// The photo's path relative to the folder.
  public var path: String
  /// The photo's size when recognised.
  public var byteCount: Int64
  /// The photo's modification time when recognised, milliseconds since 1970.
  public var modifiedMilliseconds: Int64
  /// The recognised lines joined with newlines (empty when the photo has no text).
  public var text: String
  /// How many lines were recognised.
  public var lineCount: Int
  /// When the text was recognised, seconds since 1970.
  public var recognizedAt: Double

  /// Creates an entry.
  public init(
    path: String, byteCount: Int64, modifiedMilliseconds: Int64, text: String, lineCount: Int,
    recognizedAt: Double
  ) {
    self.path = path
    self.byteCount = byteCount
    self.modifiedMilliseconds = modifiedMilliseconds
    self.text = text
    self.lineCount = lineCount
    self.recognizedAt = recognizedAt
  }

  /// Whether the entry is about `photo` as it is now (same path, size and time): text read from
  /// a file since replaced is not shown for it.
  public func matches(_ photo: Photo) -> Bool {
    path == photo.path && byteCount == photo.byteCount
      && modifiedMilliseconds == photo.modifiedMilliseconds
  }
}
