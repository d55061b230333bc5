/// What ``DexStore/verifyIntegrity(verifyingHashes:)`` found: database problems, missing or

/// corrupt photos and stray files, so a host can run a health check and decide whether to
/// tidy up (``DexStore/removeUnreferencedFiles()``) or restore from a backup.
public struct DexIntegrityReport: Sendable, Equatable {
  /// SQLite's `integrity_check` complaints; empty when the database is sound.
  public var databaseMessages: [String] = []
  /// How many entries were checked.
  public var entryCount = 0
  /// Entries whose image or thumbnail file is missing.
  public var missingImageIDs: [String] = []
  /// Entries whose image or thumbnail no longer matches its saved hash.
  public var corruptImageIDs: [String] = []
  /// Files in the store directory that no entry references (relative paths).
  public var unreferencedFiles: [String] = []

  /// Whether nothing at all was found wrong.
  public var isHealthy: Bool {
    databaseMessages.isEmpty && missingImageIDs.isEmpty && corruptImageIDs.isEmpty
      && unreferencedFiles.isEmpty
  }
}
