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
  struct Change: Sendable, Hashable {
    /// The photo as it was when changed.
    var photo: Photo
    /// The decision before the change (`nil`: not decided); checked against the stored one.
    var previous: Decision?
    /// The decision after the change (`nil`: back to undecided).
    var next: Decision?

    /// Creates a change.
    init(photo: Photo, previous: Decision?, next: Decision?) {
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
    // Photos being moved to the trash: written before the rename, removed with the decision
    // update after it, reconciled on opening when a crash fell in between.
    migrator.registerMigration("v2") { db in
      try db.create(table: "trashing") { table in
        table.primaryKey("path", .text)
        table.column("trashName", .text).notNull()
      }
    }
    // Small per-folder flags (whether the tutorial was shown).
    migrator.registerMigration("v3") { db in
      try db.create(table: "setting") { table in
        table.primaryKey("key", .text)
        table.column("value", .text).notNull()
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
  /// the undo history; drops the history of `forgetting` (photos now in the trash). Returns the
  /// records now stored for the changed photos.
  ///
  /// It is a compare-and-set: when a photo's stored decision (for its version) is not the
  /// change's `previous`, nothing is stored and it throws ``PixScanError/conflict(path:)``.
  func apply(
    _ changes: [Change], undoable: Bool, forgetting: [String] = []
  ) async throws(PixScanError)
    -> [DecisionRecord]
  {
    guard !changes.isEmpty || !forgetting.isEmpty else { return [] }
    return try await run { db in
      let stored = try Self.apply(changes, undoable: undoable, in: db)
      for path in forgetting {
        try db.execute(sql: "DELETE FROM action WHERE path = ?", arguments: [path])
        try db.execute(sql: "DELETE FROM trashing WHERE path = ?", arguments: [path])
      }
      return stored
    }
  }

  /// Removes the last batch of the undo history and reverts it, in one transaction (checked
  /// like ``apply(_:undoable:forgetting:)``). Returns the reverting changes and the records
  /// stored; empty when there is nothing to undo.
  func undoLastBatch() async throws(PixScanError) -> (changes: [Change], stored: [DecisionRecord]) {
    try await run { db in
      guard let batch = try Int64.fetchOne(db, sql: "SELECT MAX(batch) FROM action") else {
        return ([], [])
      }
      let rows = try Row.fetchAll(
        db, sql: "SELECT * FROM action WHERE batch = ? ORDER BY id", arguments: [batch])
      try db.execute(sql: "DELETE FROM action WHERE batch = ?", arguments: [batch])
      let reverted = try rows.map { row in
        let change = try Self.change(row)
        return Change(photo: change.photo, previous: change.next, next: change.previous)
      }
      return (reverted, try Self.apply(reverted, undoable: false, in: db))
    }
  }

  static func apply(_ changes: [Change], undoable: Bool, in db: Database) throws -> [DecisionRecord]
  {
    guard !changes.isEmpty else { return [] }
    let sequence =
      (try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM decision") ?? 0) + 1
    let batch =
      (try Int64.fetchOne(db, sql: "SELECT MAX(batch) FROM action") ?? 0) + 1
    var stored: [DecisionRecord] = []
    for (offset, change) in changes.enumerated() {
      let existing = try DecisionRecord.fetchOne(db, key: change.photo.path)
      let current = existing.flatMap { $0.matches(change.photo) ? $0.decision : nil }
      guard current == change.previous else { throw Conflict(path: change.photo.path) }
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

  /// One undo-history row as a change, refusing a row with missing or mistyped columns.
  static func change(_ row: Row) throws -> Change {
    let previous: String? = try row.decode(String?.self, forColumn: "previous")
    let next: String? = try row.decode(String?.self, forColumn: "next")
    return Change(
      photo: Photo(
        path: try row.decode(String.self, forColumn: "path"),
        byteCount: try row.decode(Int64.self, forColumn: "byteCount"),
        modifiedMilliseconds: try row.decode(Int64.self, forColumn: "modifiedMilliseconds"),
        isScreenshot: try row.decode(Bool.self, forColumn: "isScreenshot")),
      previous: try previous.map(Self.decision),
      next: try next.map(Self.decision))
  }

  static func decision(_ text: String) throws -> Decision {
    guard let decision = Decision(rawValue: text) else {
      throw Corrupt(message: "an unknown decision “\(text.prefix(40))”")
    }
    return decision
  }

  /// A compare-and-set that found another decision than expected.
  struct Conflict: Error {
    var path: String
  }

  /// A row that does not hold what PixScan wrote.
  struct Corrupt: Error {
    var message: String
  }

  /// Records that the photo at `path` is about to be renamed to `trashName` in the trash.
  func markTrashing(path: String, trashName: String) async throws(PixScanError) {
    try await run { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO trashing (path, trashName) VALUES (?, ?)",
        arguments: [path, trashName])
    }
  }

  /// Forgets the move of `path` to the trash (it did not happen).
  func clearTrashing(path: String) async throws(PixScanError) {
    try await run { db in
      try db.execute(sql: "DELETE FROM trashing WHERE path = ?", arguments: [path])
    }
  }

  /// The moves to the trash that were started and not finished (a crash in between).
  func pendingTrashing() async throws(PixScanError) -> [(path: String, trashName: String)] {
    try await run { db in
      try Row.fetchAll(db, sql: "SELECT path, trashName FROM trashing").map { row in
        (
          try row.decode(String.self, forColumn: "path"),
          try row.decode(String.self, forColumn: "trashName")
        )
      }
    }
  }

  /// Settles unfinished moves in one transaction: `moved` photos are now trashed (their undo
  /// history dropped), the others keep their decision.
  func settleTrashing(moved: [String], notMoved: [String]) async throws(PixScanError) {
    try await run { db in
      for path in moved {
        try db.execute(
          sql: "UPDATE decision SET decision = ? WHERE path = ?",
          arguments: [Decision.trashed.rawValue, path])
        try db.execute(sql: "DELETE FROM action WHERE path = ?", arguments: [path])
      }
      for path in moved + notMoved {
        try db.execute(sql: "DELETE FROM trashing WHERE path = ?", arguments: [path])
      }
    }
  }

  /// Stores the text recognised in a photo (replacing an earlier one).
  public func save(_ entry: TextEntry) async throws(PixScanError) {
    try await run { db in try entry.save(db) }
  }

  /// For tests: each write first waits a random time up to this many microseconds, so that
  /// concurrent callers interleave at every suspension point as a slow disk would make them.
  @TaskLocal static var writeJitterMicroseconds = 0

  /// Runs `work` in a write transaction, turning GRDB's errors into ``PixScanError``.
  func run<T: Sendable>(
    _ work: @escaping @Sendable (Database) throws -> T
  ) async throws(PixScanError) -> T {
    if Self.writeJitterMicroseconds > 0 {
      try? await Task.sleep(for: .microseconds(Int.random(in: 0...Self.writeJitterMicroseconds)))
    }
    do {
      return try await database.write(work)
    } catch let conflict as Conflict {
      throw .conflict(path: conflict.path)
    } catch let corrupt as Corrupt {
      throw .storeFailed("the database is damaged: \(corrupt.message)")
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
