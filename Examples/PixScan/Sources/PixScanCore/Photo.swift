/// One photo in the triaged folder, identified by its relative path, size and modification
/// time.
///
/// The three together are the key under which a decision and recognised text are stored: a file
/// that is replaced (new size or time) counts as a new photo, one that is untouched is never
/// processed again.
public struct Photo: Sendable, Hashable, Codable {
  /// The path relative to the folder, `/`-separated.
  public var path: String
  /// The file's size in bytes.
  public var byteCount: Int64
  /// The file's modification time, in milliseconds since 1970.
  public var modifiedMilliseconds: Int64
  /// Whether ``ScreenshotRule`` counts it as a screenshot.
  public var isScreenshot: Bool

  /// Creates a photo value.
  public init(path: String, byteCount: Int64, modifiedMilliseconds: Int64, isScreenshot: Bool) {
    self.path = path
    self.byteCount = byteCount
    self.modifiedMilliseconds = modifiedMilliseconds
    self.isScreenshot = isScreenshot
  }

  /// A short token that changes when the file does, for cache keys and URLs.
  public var version: String { "\(byteCount)-\(modifiedMilliseconds)" }
}
