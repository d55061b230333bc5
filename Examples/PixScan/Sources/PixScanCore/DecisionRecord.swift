import GRDB

/// One row of the `decision` table: a photo (path, size, modification time) and what was
/// decided about it.
///
/// It exists so that the session restores every decision on reopening, and so that a photo
/// whose size or time changed no longer matches its old decision.
public struct DecisionRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
  /// The table's name.
  public static let databaseTableName = "decision"
  /// The photo's path relative to the folder.
  public var path: String
  /// The photo's size when decided.
  public var byteCount: Int64
  /// The photo's modification time when decided, milliseconds since 1970.
  public var modifiedMilliseconds: Int64
  /// The decision.
  public var decision: Decision
  /// Increases with every decision: the queue lists photos in the order they were queued.
  public var sequence: Int64
  /// Whether the photo counted as a screenshot (kept for photos already in the trash).
  public var isScreenshot: Bool

  /// Creates a record.
  public init(
    path: String, byteCount: Int64, modifiedMilliseconds: Int64, decision: Decision,
    sequence: Int64, isScreenshot: Bool
  ) {
    self.isScreenshot = isScreenshot
    self.path = path
    self.byteCount = byteCount
    self.modifiedMilliseconds = modifiedMilliseconds
    self.decision = decision
    self.sequence = sequence
  }

  /// Whether the record is about `photo` as it is now (same path, size and time).
  public func matches(_ photo: Photo) -> Bool {
    path == photo.path && byteCount == photo.byteCount
      && modifiedMilliseconds == photo.modifiedMilliseconds
  }

  /// The photo the record is about, as it was when decided.
  public var photo: Photo {
    Photo(
      path: path, byteCount: byteCount, modifiedMilliseconds: modifiedMilliseconds,
      isScreenshot: isScreenshot)
  }
}

extension Decision: DatabaseValueConvertible {}
