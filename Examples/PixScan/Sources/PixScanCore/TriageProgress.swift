/// The live counters the page's progress bar shows, for one filter.
public struct TriageProgress: Sendable, Hashable, Codable {
  /// The filter the counts are for.
  public var filter: PhotoFilter
  /// Photos in the filter (the trashed ones included).
  public var total: Int
  /// Photos decided (kept, queued or trashed).
  public var processed: Int
  /// Photos kept.
  public var kept: Int
  /// Photos in the delete queue.
  public var queued: Int
  /// Photos moved to the trash.
  public var trashed: Int
  /// Photos whose text has been recognised (over the whole folder).
  public var recognized: Int
  /// Text recognitions running now.
  public var recognizing: Int
  /// The bytes the delete queue would free (over the whole folder).
  public var queueByteCount: Int64
  /// Photos in the delete queue over the whole folder (the filter aside).
  public var queueCount: Int
  /// Whether the listing stopped at ``PixScanLimits/maximumPhotoCount`` photos or
  /// ``PixScanLimits/maximumEntryCount`` entries read.
  public var isTruncated: Bool
  /// The last text recognition failure (for example "not available"), `nil` when none.
  public var recognitionNote: String?
  /// Whether the last batch of the undo history can be undone.
  public var canUndo: Bool

  /// Creates progress counters.
  public init(
    filter: PhotoFilter, total: Int, processed: Int, kept: Int, queued: Int, trashed: Int,
    recognized: Int, recognizing: Int, queueByteCount: Int64, queueCount: Int,
    isTruncated: Bool, recognitionNote: String?, canUndo: Bool
  ) {
    self.filter = filter
    self.total = total
    self.processed = processed
    self.kept = kept
    self.queued = queued
    self.trashed = trashed
    self.recognized = recognized
    self.recognizing = recognizing
    self.queueByteCount = queueByteCount
    self.queueCount = queueCount
    self.isTruncated = isTruncated
    self.recognitionNote = recognitionNote
    self.canUndo = canUndo
  }
}
