/// What emptying the delete queue did: the photos moved to the trash and the ones that could not
/// be (they stay in the queue).
public struct TrashReport: Sendable, Hashable, Codable {
  /// One photo that stayed, and why.
  public struct Failure: Sendable, Hashable, Codable {
    /// The photo's path relative to the folder.
    public var path: String
    /// The error's code (``PixScanError/code``).
    public var code: String
    /// The error's message.
    public var message: String

    /// Creates a failure.
    public init(path: String, code: String, message: String) {
      self.path = path
      self.code = code
      self.message = message
    }
  }

  /// The paths moved, relative to the folder.
  public var moved: [String]
  /// The bytes moved.
  public var movedByteCount: Int64
  /// The photos that stayed.
  public var failures: [Failure]

  /// Creates a report.
  public init(moved: [String], movedByteCount: Int64, failures: [Failure]) {
    self.moved = moved
    self.movedByteCount = movedByteCount
    self.failures = failures
  }
}
