import DexModel
import Foundation
internal import GRDB

extension DexStore {
  /// The versioned migrations. Released migrations never change; new ones are appended.
  static var migrator: DatabaseMigrator {
    var migrator = firstReleaseMigrator
    registerRecognizedText(in: &migrator)
    return migrator
  }

  /// The first release's migrations alone: how the tests write a store as that release did.
  static var firstReleaseMigrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1 entries, images, full-text search") { db in
      try db.execute(
        sql: """
          CREATE TABLE entry (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            commonName TEXT NOT NULL,
            categoryRaw TEXT NOT NULL,
            categoryKey TEXT NOT NULL,
            scientificName TEXT NOT NULL,
            summary TEXT NOT NULL,
            facts TEXT NOT NULL,
            rarity TEXT NOT NULL,
            confidence REAL NOT NULL,
            localGuessLabel TEXT NOT NULL,
            discovered REAL NOT NULL,
            notes TEXT NOT NULL,
            imagePath TEXT NOT NULL,
            imageSize INTEGER NOT NULL,
            imageSHA256 TEXT NOT NULL,
            thumbnailPath TEXT,
            thumbnailSHA256 TEXT,
            savedAt REAL NOT NULL
          );
          CREATE INDEX entry_newest ON entry(discovered DESC, id DESC);
          CREATE INDEX entry_category_newest ON entry(categoryKey, discovered DESC, id DESC);
          CREATE INDEX entry_image_hash ON entry(imageSHA256);
          CREATE VIRTUAL TABLE entry_text USING fts5(
            commonName, scientificName, summary, facts,
            tokenize = '\(DexTextSearch.tokenizer)'
          );
          CREATE TRIGGER entry_text_insert AFTER INSERT ON entry BEGIN
            INSERT INTO entry_text(rowid, commonName, scientificName, summary, facts)
            VALUES (new.seq, new.commonName, new.scientificName, new.summary,
                    (SELECT group_concat(value, ' ') FROM json_each(new.facts)));
          END;
          CREATE TRIGGER entry_text_delete AFTER DELETE ON entry BEGIN
            DELETE FROM entry_text WHERE rowid = old.seq;
          END;
          CREATE TRIGGER entry_text_update AFTER UPDATE OF commonName, scientificName, summary, facts
          ON entry BEGIN
            DELETE FROM entry_text WHERE rowid = old.seq;
            INSERT INTO entry_text(rowid, commonName, scientificName, summary, facts)
            VALUES (new.seq, new.commonName, new.scientificName, new.summary,
                    (SELECT group_concat(value, ' ') FROM json_each(new.facts)));
          END;
          """)
    }
    return migrator
  }

  private static func registerRecognizedText(in migrator: inout DatabaseMigrator) {
    // The text read in the photo on device: a nullable column (old rows read `nil`), and the
    // search index rebuilt with it as a fifth column (FTS5 tables cannot gain columns).
    migrator.registerMigration("v2 recognized text") { db in
      try db.execute(
        sql: """
          ALTER TABLE entry ADD COLUMN recognizedText TEXT;
          DROP TRIGGER entry_text_insert;
          DROP TRIGGER entry_text_delete;
          DROP TRIGGER entry_text_update;
          DROP TABLE entry_text;
          CREATE VIRTUAL TABLE entry_text USING fts5(
            commonName, scientificName, summary, facts, recognizedText,
            tokenize = '\(DexTextSearch.tokenizer)'
          );
          INSERT INTO entry_text(rowid, commonName, scientificName, summary, facts, recognizedText)
          SELECT seq, commonName, scientificName, summary,
                 (SELECT group_concat(value, ' ') FROM json_each(entry.facts)), recognizedText
          FROM entry;
          CREATE TRIGGER entry_text_insert AFTER INSERT ON entry BEGIN
            INSERT INTO entry_text(rowid, commonName, scientificName, summary, facts, recognizedText)
            VALUES (new.seq, new.commonName, new.scientificName, new.summary,
                    (SELECT group_concat(value, ' ') FROM json_each(new.facts)),
                    new.recognizedText);
          END;
          CREATE TRIGGER entry_text_delete AFTER DELETE ON entry BEGIN
            DELETE FROM entry_text WHERE rowid = old.seq;
          END;
          CREATE TRIGGER entry_text_update
          AFTER UPDATE OF commonName, scientificName, summary, facts, recognizedText
          ON entry BEGIN
            DELETE FROM entry_text WHERE rowid = old.seq;
            INSERT INTO entry_text(rowid, commonName, scientificName, summary, facts, recognizedText)
            VALUES (new.seq, new.commonName, new.scientificName, new.summary,
                    (SELECT group_concat(value, ' ') FROM json_each(new.facts)),
                    new.recognizedText);
          END;
          """)
    }
  }

  /// The FTS5 query for `terms`: every word as a quoted prefix, all required.
  static func matchExpression(_ terms: [String]) -> String {
    terms.map { "\"\($0)\"*" }.joined(separator: " ")
  }

  /// One page of `query` after `cursor`, newest first.
  static func fetchPage(
    _ db: Database, _ query: DexQuery, after cursor: DexCursor?
  ) throws
    -> DexPage
  {
    var (conditions, arguments) = filter(query)
    if let terms = query.searchTerms, terms.isEmpty { return DexPage(entries: [], nextCursor: nil) }
    if let cursor {
      conditions.append("(discovered < ? OR (discovered = ? AND id < ?))")
      let seconds = cursor.dateDiscovered.timeIntervalSinceReferenceDate
      arguments += [seconds, seconds, cursor.id]
    }
    let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    arguments += [query.limit + 1]
    let rows = try EntryRecord.fetchAll(
      db,
      sql: "SELECT * FROM entry \(whereClause) ORDER BY discovered DESC, id DESC LIMIT ?",
      arguments: arguments)
    let entries = rows.prefix(query.limit).map(\.entry)
    let next = rows.count > query.limit ? entries.last.map(DexCursor.init(after:)) : nil
    return DexPage(entries: entries, nextCursor: next)
  }

  /// The WHERE conditions and arguments for a query's category and text.
  static func filter(_ query: DexQuery) -> (conditions: [String], arguments: StatementArguments) {
    var conditions: [String] = []
    var arguments = StatementArguments()
    if let category = query.category {
      conditions.append("categoryKey = ?")
      arguments += [category.rawValue]
    }
    if let terms = query.searchTerms, !terms.isEmpty {
      conditions.append("seq IN (SELECT rowid FROM entry_text WHERE entry_text MATCH ?)")
      arguments += [matchExpression(terms)]
    }
    return (conditions, arguments)
  }

  /// The number of entries matching `query`.
  static func fetchCount(_ db: Database, _ query: DexQuery) throws -> Int {
    if let terms = query.searchTerms, terms.isEmpty { return 0 }
    let (conditions, arguments) = filter(query)
    let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    return try Int.fetchOne(
      db, sql: "SELECT COUNT(*) FROM entry \(whereClause)", arguments: arguments)
      ?? 0
  }
}
