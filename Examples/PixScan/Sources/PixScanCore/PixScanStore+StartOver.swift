import Foundation
import GRDB

extension PixScanStore {
  /// The key under which the tutorial's completion is stored.
  static let tutorialKey = "tutorialSeen"

  /// Whether this folder's tutorial was performed or skipped.
  func isTutorialSeen() async throws(PixScanError) -> Bool {
    try await run { db in
      try String.fetchOne(
        db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [Self.tutorialKey]) != nil
    }
  }

  /// Records that this folder's tutorial was performed or skipped.
  func markTutorialSeen() async throws(PixScanError) {
    try await run { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, '1')",
        arguments: [Self.tutorialKey])
    }
  }

  /// Starts the folder's triage over in one transaction: every decision but "trashed" (those
  /// photos are in the trash and stay there), every text, the undo history and the tutorial flag
  /// are removed. Returns the decisions that remain.
  func startOver() async throws(PixScanError) -> [String: DecisionRecord] {
    try await run { db in
      try db.execute(
        sql: "DELETE FROM decision WHERE decision != ?", arguments: [Decision.trashed.rawValue])
      try db.execute(sql: "DELETE FROM \(TextEntry.databaseTableName)")
      try db.execute(sql: "DELETE FROM action")
      try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [Self.tutorialKey])
      return Dictionary(
        try DecisionRecord.fetchAll(db).map { ($0.path, $0) }, uniquingKeysWith: { $1 })
    }
  }
}
