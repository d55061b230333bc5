/// Everything that can go wrong in a ``DexStore``, each with a message a person can act on.
///
/// Storage failures are mapped to a few meaningful cases (corrupt database, unwritable directory,
/// full disk, busy) instead of raw SQLite or POSIX codes, so an app can tell the user what to do.
public enum DexStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The database file is damaged or is not a database. Nothing was modified.
  case corruptDatabase(path: String, detail: String)
  /// The store directory (or a file in it) cannot be created or written.
  case unwritableDirectory(path: String, detail: String)
  /// The disk (or the process's file-size limit) is full; the failed change was rolled back.
  case diskFull(path: String)
  /// Another process held the store's write lock for longer than the configured timeout.
  case busy(path: String)
  /// No entry has this id.
  case notFound(id: String)
  /// An entry with this id is already stored.
  case duplicateID(String)
  /// The photo is already stored under another entry and the policy is
  /// ``DexDuplicatePolicy/reject``.
  case duplicateImage(existingID: String)
  /// The entry cannot be stored as given (bad id, non-finite number…).
  case invalidEntry(String)
  /// The image bytes are empty or larger than the configured maximum.
  case invalidImage(String)
  /// An entry's image file is gone from the store directory.
  case imageMissing(id: String)
  /// An entry's image file no longer matches the hash recorded when it was saved.
  case imageCorrupted(id: String)
  /// A backup archive is malformed, truncated or inconsistent.
  case invalidArchive(String)
  /// A backup archive was written by a newer DexKit whose format this version cannot read.
  case unsupportedArchiveVersion(Int)
  /// The database was written by a newer DexKit with migrations this version does not know.
  case unsupportedSchema(path: String)
  /// Another file-system error, with the operation and the system's message.
  case io(operation: String, path: String, detail: String)
  /// The store was closed with ``DexStore/close()``.
  case closed

  /// A sentence describing the failure.
  public var description: String {
    switch self {
    case .corruptDatabase(let path, let detail):
      return "The Dex database at \(path) is damaged or is not a database (\(detail))."
    case .unwritableDirectory(let path, let detail):
      return "The Dex store cannot write to \(path) (\(detail))."
    case .diskFull(let path):
      return "There is no space left to save into the Dex store at \(path)."
    case .busy(let path):
      return "The Dex store at \(path) is in use by another process; try again."
    case .notFound(let id):
      return "No Dex entry has the id \(id)."
    case .duplicateID(let id):
      return "A Dex entry with the id \(id) already exists."
    case .duplicateImage(let existingID):
      return "This photo is already saved as Dex entry \(existingID)."
    case .invalidEntry(let reason):
      return "The Dex entry cannot be saved: \(reason)."
    case .invalidImage(let reason):
      return "The image cannot be saved: \(reason)."
    case .imageMissing(let id):
      return "The image file of Dex entry \(id) is missing."
    case .imageCorrupted(let id):
      return "The image file of Dex entry \(id) is damaged (its hash no longer matches)."
    case .invalidArchive(let reason):
      return "The Dex backup archive is not valid: \(reason)."
    case .unsupportedArchiveVersion(let version):
      return "The Dex backup archive uses format version \(version), which is newer than supported."
    case .unsupportedSchema(let path):
      return "The Dex database at \(path) was written by a newer version of DexKit."
    case .io(let operation, let path, let detail):
      return "Could not \(operation) \(path): \(detail)."
    case .closed:
      return "The Dex store has been closed."
    }
  }
}
