import DexModel
import Foundation
internal import GRDB
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The default ``DexStoring``: a crash-safe collection in its own directory.
///
/// Metadata lives in SQLite (through GRDB, WAL mode, `synchronous=FULL`, versioned migrations);
/// photos live as files inside the same directory, referenced by relative paths so a moved or
/// restored store keeps working. Nothing else should share the directory (`Dex.store` by default,
/// like the dedicated SwiftData store of the reference app, ShipThatApp's iOS Dex Scanner, which
/// DexKit ports; its code is not part of this repository).
///
/// ## Crash safety
/// An insert writes each image to `tmp/`, fsyncs it and the directory, then commits the row, and
/// only then renames the file into `images/`. A delete moves the files into `tmp/` before its row
/// is deleted and unlinks them after the commit. So after a crash, `tmp/` holds every file whose
/// fate was undecided, and the database says what it should be: opening the store when no other
/// process has it open moves a file back into place if its row exists and deletes it otherwise.
/// An insert that returned is durable; one that did not return is either wholly there or wholly
/// absent.
///
/// ## Concurrency
/// `DexStore` is `Sendable` and may be used from many tasks at once: writes are serialized by
/// SQLite's write lock (also across processes; a writer waits up to
/// ``Configuration/busyTimeout``), reads run concurrently on WAL snapshots.
public final class DexStore: DexStoring {
  /// The store directory.
  public let directory: URL
  /// The configuration the store was opened with.
  public let configuration: Configuration

  let pool: DatabasePool
  let files: StoreFiles
  let lock: StoreLock
  var logger: Logger { configuration.logger }

  /// Opens (creating if needed) the store described by `configuration`.
  ///
  /// Opening creates the directory layout, checks it is writable, runs pending migrations and,
  /// when no other process has the store open, resolves what an interrupted write left behind.
  /// It blocks on file I/O: from async code, prefer ``open(configuration:)``, which runs it off
  /// the caller's executor.
  ///
  /// - Throws: ``DexStoreError/unwritableDirectory(path:detail:)``,
  ///   ``DexStoreError/corruptDatabase(path:detail:)``, ``DexStoreError/diskFull(path:)``,
  ///   ``DexStoreError/busy(path:)`` or ``DexStoreError/unsupportedSchema(path:)``.
  public convenience init(configuration: Configuration) throws {
    try self.init(configuration: configuration, migrator: Self.migrator)
  }

  /// Opens the store with `migrator` instead of ``migrator``: how the tests play a later
  /// version's migrations on a store written by this one.
  init(configuration: Configuration, migrator: DatabaseMigrator) throws {
    self.configuration = configuration
    self.directory = configuration.directory
    let files = StoreFiles(root: configuration.directory)
    self.files = files
    try files.prepareDirectories()
    let (lock, exclusive) = try StoreLock.acquire(
      path: files.lockPath, timeout: configuration.busyTimeout)
    self.lock = lock

    var grdb = GRDB.Configuration()
    grdb.busyMode = .timeout(configuration.busyTimeout)
    grdb.label = "DexStore"
    grdb.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = FULL")
    }
    let databasePath = files.databasePath
    do {
      try files.createDatabaseFileIfMissing()
      pool = try DatabasePool(path: databasePath, configuration: grdb)
      let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
      if superseded { throw DexStoreError.unsupportedSchema(path: databasePath) }
      try migrator.migrate(pool)
    } catch {
      lock.release()
      throw Self.mapError(error, path: databasePath, files: files)
    }
    if exclusive {
      do {
        try recoverInterruptedWrites()
      } catch {
        try? pool.close()
        lock.release()
        throw Self.mapError(error, path: databasePath, files: files)
      }
    }
    lock.downgrade()
  }

  /// Opens (creating if needed) the store in `directory` with default settings.
  public convenience init(directory: URL = DexStore.defaultDirectory) throws {
    try self.init(configuration: Configuration(directory: directory))
  }

  /// Closes the database and releases the directory; later calls throw
  /// ``DexStoreError/closed``. Closing is also done when the store is deallocated.
  public func close() throws {
    guard !lock.isReleased else { return }
    defer { lock.release() }
    // Fold the WAL into the database file so the directory is self-contained when closed (GRDB's
    // reader connections are read-only and cannot do it when they close last).
    _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    do {
      try pool.close()
    } catch {
      throw Self.mapError(error, path: files.databasePath)
    }
  }

  func checkOpen() throws {
    if lock.isReleased { throw DexStoreError.closed }
  }

  // MARK: Reading

  /// The entry with `id`, or `nil` (also for ids that are not UUIDs).
  public func entry(id: String) async throws -> DexEntry? {
    guard let id = Self.canonicalID(id) else { return nil }
    return try await read { db in
      try EntryRecord.fetchOne(db, sql: "SELECT * FROM entry WHERE id = ?", arguments: [id])?.entry
    }
  }

  /// The photo bytes of entry `id`, checked against their saved hash when
  /// ``Configuration/verifiesImagesOnLoad`` is on.
  public func imageData(for id: String) async throws -> Data {
    guard let data = try await loadFile(id: id, kind: .image) else {
      throw DexStoreError.imageMissing(id: id)
    }
    return data
  }

  /// The thumbnail bytes of entry `id`, or `nil` when it has none.
  public func thumbnailData(for id: String) async throws -> Data? {
    try await loadFile(id: id, kind: .thumbnail)
  }

  /// One page of `query`, newest first (by discovery date, then id), after `cursor`.
  public func page(_ query: DexQuery, after cursor: DexCursor? = nil) async throws -> DexPage {
    try await read { db in try Self.fetchPage(db, query, after: cursor) }
  }

  /// How many entries match `query`.
  public func count(matching query: DexQuery = DexQuery()) async throws -> Int {
    try await read { db in try Self.fetchCount(db, query) }
  }

  /// Entry counts per category (raw values that are not a ``/DexModel/DexCategory`` count as
  /// ``/DexModel/DexCategory/unknown``).
  public func countsByCategory() async throws -> [DexCategory: Int] {
    let rows = try await read { db in
      try Row.fetchAll(db, sql: "SELECT categoryKey, COUNT(*) FROM entry GROUP BY categoryKey")
        .map { row -> (String, Int) in (try row.decode(atIndex: 0), try row.decode(atIndex: 1)) }
    }
    var counts: [DexCategory: Int] = [:]
    for (key, count) in rows {
      counts[DexCategory(rawValue: key) ?? .unknown, default: 0] += count
    }
    return counts
  }

  /// Loads one image file of entry `id`: `nil` if the entry has no such file, throws
  /// ``DexStoreError/notFound(id:)`` if there is no entry.
  ///
  /// The file is read and hashed inside the database read, on GRDB's reader queue, so a large
  /// photo never blocks the caller's executor or a thread of Swift's cooperative pool.
  private func loadFile(id rawID: String, kind: StoreFiles.Kind) async throws -> Data? {
    guard let id = Self.canonicalID(rawID) else { throw DexStoreError.notFound(id: rawID) }
    let column = kind == .image ? "imagePath, imageSHA256" : "thumbnailPath, thumbnailSHA256"
    let files = files
    let maximum = configuration.maximumImageBytes
    let verifies = configuration.verifiesImagesOnLoad
    for attempt in 0..<2 {
      let loaded: LoadedFile = try await read { db in
        guard
          let row = try Row.fetchOne(
            db, sql: "SELECT \(column) FROM entry WHERE id = ?", arguments: [id])
        else { throw DexStoreError.notFound(id: id) }
        let (path, hash): (String?, String?) = (
          try row.decode(atIndex: 0), try row.decode(atIndex: 1)
        )
        guard let relativePath = path else { return .none }
        guard StoreFiles.isStoredPath(relativePath, id: id, kind: kind) else {
          throw DexStoreError.corruptDatabase(
            path: files.databasePath, detail: "entry \(id) names a file that is not its own")
        }
        // The file is in `images/` once published, or still in `tmp/` for an instant after the
        // commit (or until the next recovery if the writer crashed right after committing).
        let data =
          try files.read(files.absolute(relativePath), maximumBytes: maximum)
          ?? files.read(files.stagedPath(id: id, kind: kind), maximumBytes: maximum)
        guard let data else { return .missing }
        if verifies, let hash, data.sha256Hex != hash {
          throw DexStoreError.imageCorrupted(id: id)
        }
        return .data(data)
      }
      switch loaded {
      case .data(let data): return data
      case .none: return nil
      case .missing where attempt == 0:
        // A delete of this entry may be half done (its files moved, its row not yet gone):
        // once the writer is free, its row says which (gone: notFound; there: read again).
        guard try await isStoredOnceWritesSettle(id: id) else {
          throw DexStoreError.notFound(id: id)
        }
        continue
      case .missing: throw DexStoreError.imageMissing(id: id)
      }
    }
    throw DexStoreError.imageMissing(id: id)
  }

  /// What ``loadFile(id:kind:)`` found in one attempt.
  private enum LoadedFile: Sendable {
    /// The file's bytes.
    case data(Data)
    /// The entry has no file of that kind.
    case none
    /// The entry names a file that is not there.
    case missing
  }

  /// The content hash the store records for image bytes (lowercase hex SHA-256), the key of
  /// duplicate-photo detection; apps can use it to check a photo before saving it.
  public static func contentHash(of data: Data) -> String {
    data.sha256Hex
  }

  // MARK: Plumbing

  /// The canonical (uppercase) form of a UUID string, or `nil` for anything else.
  package static func canonicalID(_ id: String) -> String? {
    UUID(uuidString: id)?.uuidString
  }

  /// Runs a read on a WAL snapshot, mapping errors to ``DexStoreError``.
  func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try checkOpen()
    do {
      return try await pool.read(body)
    } catch {
      throw Self.mapError(error, path: files.databasePath)
    }
  }

  /// Maps GRDB/SQLite and other errors to ``DexStoreError``.
  static func mapError(
    _ error: any Error, path: String, systemErrno: Int32 = 0, files: StoreFiles? = nil
  ) -> any Error {
    if error is DexStoreError || error is CancellationError { return error }
    guard let dbError = error as? DatabaseError else {
      return DexStoreError.io(operation: "use", path: path, detail: "\(error)")
    }
    let detail = dbError.message ?? "\(dbError.resultCode)"
    switch dbError.resultCode {
    case .SQLITE_CORRUPT, .SQLITE_NOTADB:
      return DexStoreError.corruptDatabase(path: path, detail: detail)
    case .SQLITE_FULL:
      return DexStoreError.diskFull(path: path)
    case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN, .SQLITE_AUTH:
      return DexStoreError.unwritableDirectory(path: path, detail: detail)
    case .SQLITE_BUSY, .SQLITE_LOCKED:
      return DexStoreError.busy(path: path)
    case .SQLITE_MISUSE where detail.lowercased().contains("closed"):
      return DexStoreError.closed
    case .SQLITE_IOERR where systemErrno != 0 && systemErrno != EIO:
      return StoreFiles.error(systemErrno, "write", path)
    case .SQLITE_IOERR where files?.isOutOfSpace() == true:
      // SQLite reports a write that starts beyond the limit as a plain I/O error and its errno
      // is not reliably kept, so look at the disk and the file-size limit themselves.
      return DexStoreError.diskFull(path: path)
    default:
      return DexStoreError.io(operation: "use the database", path: path, detail: detail)
    }
  }
}
