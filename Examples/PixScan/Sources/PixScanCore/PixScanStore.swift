import Foundation
import GRDB

/// The SQLite file (through GRDB) that keeps a folder's triage: decisions, the undo history and
/// recognised text.
///
/// It lives in the folder's own state directory, `FOLDER/.pixscan/pixscan.sqlite`, so that the
/// progress travels with the photos (a copied or renamed folder keeps it) and two folders never
/// share one. Every change is one transaction: a crash loses at most the change in flight.
public final class PixScanStore: Sendable {
  /// The database file's name inside the state directory.
  public static let fileName = "pixscan.sqlite"
  let database: DatabaseQueue
  /// The database file's path.
  public let path: String

  /// One change of one photo's decision, as the undo history records it.
  public struct Change: Sendable, Hashable {
    /// The photo as it was when changed.
    public var photo: Photo
    /// The decision before the change (`nil`: not decided).
    public var previous: Decision?
    /// The decision after the change (`nil`: back to undecided).
    public var next: Decision?

    /// Creates a change.
    public init(photo: Photo, previous: Decision?, next: Decision?) {
      self.photo = photo
      self.previous = previous
      self.next = next
    }
  }

  /// Opens (creating when missing) the store in `directory`.
  ///
  /// - Throws: ``PixScanError/storeFailed(_:)``.
  public init(directory: String) throws(PixScanError) {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      path = directory + "/" + Self.fileName
      database = try DatabaseQueue(path: path)
      try Self.migrator.migrate(database)
    } catch {
      throw .storeFailed("cannot open \(directory)/\(Self.fileName): \(error)")
    }
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.create(table: DecisionRecord.databaseTableName) { table in
        table.primaryKey("path", .text)
        table.column("byteCount", .integer).notNull()
        table.column("modifiedMilliseconds", .integer).notNull()
        table.column("decision", .text).notNull()
        table.column("sequence", .integer).notNull()
        table.column("isScreenshot", .boolean).notNull()
      }
      try db.create(table: TextEntry.databaseTableName) { table in
        table.primaryKey("path", .text)
        table.column("byteCount", .integer).notNull()
        table.column("modifiedMilliseconds", .integer).notNull()
        table.column("text", .text).notNull()
        table.column("lineCount", .integer).notNull()
        table.column("recognizedAt", .double).notNull()
      }
      // The undo history: one batch per user action, one row per photo it changed.
      try db.create(table: "action") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("batch", .integer).notNull().indexed()
        table.column("path", .text).notNull()
        table.column("byteCount", .integer).notNull()
        table.column("modifiedMilliseconds", .integer).notNull()
        table.column("isScreenshot", .boolean).notNull()
        table.column("previous", .text)
        table.column("next", .text)
      }
    }
    return migrator
  }

  /// Every decision stored, by path.
  public func decisions() async throws(PixScanError) -> [String: DecisionRecord] {
    try await run { db in
      Dictionary(
        try DecisionRecord.fetchAll(db).map { ($0.path, $0) }, uniquingKeysWith: { $1 })
    }
  }

  /// Every recognised text stored, by path.
  public func texts() async throws(PixScanError) -> [String: TextEntry] {
    try await run { db in
      Dictionary(try TextEntry.fetchAll(db).map { ($0.path, $0) }, uniquingKeysWith: { $1 })
    }
  }

  /// Applies `changes` in one transaction and, when `undoable`, records them as one batch of
  /// the undo history. Returns the records now stored for the changed photos.
  public func apply(
    _ changes: [Change], undoable: Bool
  ) async throws(PixScanError)
    -> [DecisionRecord]
  {
    guard !changes.isEmpty else { return [] }
    return try await run { db in
      let sequence =
        (try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM decision") ?? 0) + 1
      let batch =
        (try Int64.fetchOne(db, sql: "SELECT MAX(batch) FROM action") ?? 0) + 1
      var stored: [DecisionRecord] = []
      for (offset, change) in changes.enumerated() {
        if let next = change.next {
          let record = DecisionRecord(
            path: change.photo.path, byteCount: change.photo.byteCount,
            modifiedMilliseconds: change.photo.modifiedMilliseconds, decision: next,
            sequence: sequence + Int64(offset), isScreenshot: change.photo.isScreenshot)
          try record.save(db)
          stored.append(record)
        } else {
          _ = try DecisionRecord.deleteOne(db, key: change.photo.path)
        }
        if undoable {
          try db.execute(
            sql: """
              INSERT INTO action (batch, path, byteCount, modifiedMilliseconds, isScreenshot,
                previous, next) VALUES (?, ?, ?, ?, ?, ?, ?)
              """,
            arguments: [
              batch, change.photo.path, change.photo.byteCount,
              change.photo.modifiedMilliseconds, change.photo.isScreenshot,
              change.previous?.rawValue, change.next?.rawValue,
            ])
        }
      }
      return stored
    }
  }

  /// Removes the last batch of the undo history and returns its changes (to be reverted by the
  /// caller); empty when there is nothing to undo.
  public func popLastBatch() async throws(PixScanError) -> [Change] {
    try await run { db in
      guard let batch = try Int64.fetchOne(db, sql: "SELECT MAX(batch) FROM action") else {
        return []
      }
      let rows = try Row.fetchAll(
        db, sql: "SELECT * FROM action WHERE batch = ? ORDER BY id", arguments: [batch])
      try db.execute(sql: "DELETE FROM action WHERE batch = ?", arguments: [batch])
      return rows.map { row in
        Change(
          photo: Photo(
            path: row["path"], byteCount: row["byteCount"],
            modifiedMilliseconds: row["modifiedMilliseconds"], isScreenshot: row["isScreenshot"]),
          previous: (row["previous"] as String?).flatMap(Decision.init(rawValue:)),
          next: (row["next"] as String?).flatMap(Decision.init(rawValue:)))
      }
    }
  }

  /// Drops every undo entry about `paths` (their files are in the trash: they cannot be
  /// undone from here).
  public func forgetHistory(of paths: [String]) async throws(PixScanError) {
    guard !paths.isEmpty else { return }
    try await run { db in
      for path in paths {
        try db.execute(sql: "DELETE FROM action WHERE path = ?", arguments: [path])
      }
    }
  }

  /// Stores the text recognised in a photo (replacing an earlier one).
  public func save(_ entry: TextEntry) async throws(PixScanError) {
    try await run { db in try entry.save(db) }
  }

  /// Runs `work` in a write transaction, turning GRDB's errors into ``PixScanError``.
  func run<T: Sendable>(
    _ work: @escaping @Sendable (Database) throws -> T
  ) async throws(PixScanError) -> T {
    do {
      return try await database.write(work)
    } catch {
      throw .storeFailed("\(error)")
    }
  }
}

extension PixScanStore {
  /// Whether the undo history is empty.
  public func isHistoryEmpty() async throws(PixScanError) -> Bool {
    try await run { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM action") == 0 }
  }
}
