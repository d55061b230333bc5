import DexModel
internal import GRDB

/// The full-text rules of ``DexStore``'s search, for stores that keep entries somewhere else.
///
/// One place decides how an entry's text is split into words and how a query's words match
/// them: the FTS5 tokenizer ``DexStore`` indexes with (``tokenizer``) and the prefix expression
/// it queries with. A store that holds its entries in memory (DexKitTesting's
/// `InMemoryDexStore`) asks this type instead of matching words by hand, so the two cannot
/// disagree on case folding ("Straße" is not found by "strass" in either), diacritics (Latin
/// letters only: "Élevé" by "eleve", not "йод" by "иод"), ligatures or word breaks.
///
/// It runs SQLite's own FTS5 over an in-memory database: nothing touches the disk.
package final class DexTextSearch: Sendable {
  /// The FTS5 tokenizer of the store's `entry_text` index (every migration that builds it uses
  /// this value).
  static let tokenizer = "unicode61 remove_diacritics 2"

  private let queue: DatabaseQueue

  /// Creates the in-memory index.
  ///
  /// - Throws: ``DexStoreError/io(operation:path:detail:)`` when SQLite cannot make an FTS5 table
  ///   (a build of SQLite without FTS5, which ``DexStore`` refuses too).
  package init() throws {
    do {
      queue = try DatabaseQueue()
      try queue.write { db in
        try db.execute(
          sql: """
            CREATE VIRTUAL TABLE entry_text USING fts5(
              commonName, scientificName, summary, facts, recognizedText,
              tokenize = '\(Self.tokenizer)'
            )
            """)
      }
    } catch {
      throw DexStoreError.io(
        operation: "create the in-memory search index", path: ":memory:", detail: "\(error)")
    }
  }

  /// Whether `entry` matches every one of `terms` as ``DexStore`` would answer a
  /// ``DexQuery`` with that text: each term a prefix of a word in the common name, scientific
  /// name, summary, facts or recognised text. No terms match nothing.
  ///
  /// - Throws: ``DexStoreError/io(operation:path:detail:)`` when SQLite fails.
  package func matches(_ entry: DexEntry, terms: [String]) throws -> Bool {
    guard !terms.isEmpty else { return false }
    var matched = false
    do {
      try queue.inTransaction { db in
        try db.execute(
          sql: """
            INSERT INTO entry_text(rowid, commonName, scientificName, summary, facts, recognizedText)
            VALUES (1, ?, ?, ?, ?, ?)
            """,
          arguments: [
            entry.commonName, entry.scientificName, entry.summary,
            entry.facts.joined(separator: " "), entry.recognizedText,
          ])
        matched =
          try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM entry_text WHERE entry_text MATCH ?)",
            arguments: [DexStore.matchExpression(terms)]) ?? false
        return .rollback
      }
    } catch {
      throw DexStoreError.io(operation: "search", path: ":memory:", detail: "\(error)")
    }
    return matched
  }
}
