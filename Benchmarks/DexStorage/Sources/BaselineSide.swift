import DexModel
import DexStorage
import Foundation
import GRDBSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The peer: the same schema, file layout and durability (WAL, `synchronous=FULL`, image written
/// to a staging file and fsynced, staging directory fsynced, row committed, file renamed into
/// place) written directly against the sqlite3 C API, with no hashing, validation or recovery.
final class BaselineSide: BenchSide {
  private var db: OpaquePointer?
  private let root: String

  init(directory: URL) async throws {
    root = directory.path
    try FileManager.default.createDirectory(
      atPath: root + "/tmp", withIntermediateDirectories: true)
    mkdir(root + "/images", 0o755)
    for shard in 0..<256 { mkdir(root + "/images/" + String(format: "%02x", shard), 0o755) }
    guard
      sqlite3_open_v2(
        root + "/baseline.sqlite", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        == SQLITE_OK
    else { throw BenchFailure("open failed") }
    try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;")
    if try scalarInt("PRAGMA user_version") == 0 {
      try exec(
        """
        BEGIN;
        CREATE TABLE entry (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, commonName TEXT NOT NULL,
          categoryRaw TEXT NOT NULL, categoryKey TEXT NOT NULL, scientificName TEXT NOT NULL,
          summary TEXT NOT NULL, facts TEXT NOT NULL, rarity TEXT NOT NULL, confidence REAL NOT NULL,
          localGuessLabel TEXT NOT NULL, discovered REAL NOT NULL, notes TEXT NOT NULL,
          imagePath TEXT NOT NULL, imageSize INTEGER NOT NULL, imageSHA256 TEXT NOT NULL,
          thumbnailPath TEXT, thumbnailSHA256 TEXT, savedAt REAL NOT NULL);
        CREATE INDEX entry_newest ON entry(discovered DESC, id DESC);
        CREATE INDEX entry_category_newest ON entry(categoryKey, discovered DESC, id DESC);
        CREATE INDEX entry_image_hash ON entry(imageSHA256);
        CREATE VIRTUAL TABLE entry_text USING fts5(commonName, scientificName, summary, facts,
          tokenize = 'unicode61 remove_diacritics 2');
        CREATE TRIGGER entry_text_insert AFTER INSERT ON entry BEGIN
          INSERT INTO entry_text(rowid, commonName, scientificName, summary, facts)
          VALUES (new.seq, new.commonName, new.scientificName, new.summary,
                  (SELECT group_concat(value, ' ') FROM json_each(new.facts)));
        END;
        PRAGMA user_version = 1;
        COMMIT;
        """)
    }
  }

  func insertOne(_ entry: DexEntry, image: Data) async throws {
    try insert([(entry, image)])
  }

  func insertBatch(_ entries: [DexEntry], imageBytes: Int) async throws {
    try insert(entries.map { ($0, randomBytes(imageBytes)) })
  }

  private func insert(_ items: [(DexEntry, Data)]) throws {
    try exec("BEGIN IMMEDIATE")
    var staged: [(String, String)] = []
    let statement = try prepare(
      "INSERT INTO entry (id, commonName, categoryRaw, categoryKey, scientificName, summary, facts, "
        + "rarity, confidence, localGuessLabel, discovered, notes, imagePath, imageSize, imageSHA256, "
        + "thumbnailPath, thumbnailSHA256, savedAt) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,NULL,NULL,?)"
    )
    defer { sqlite3_finalize(statement) }
    for (entry, image) in items {
      let stagedPath = root + "/tmp/\(entry.id).image"
      try writeDurably(image, to: stagedPath)
      let relative = "images/\(entry.id.prefix(2).lowercased())/\(entry.id).image"
      staged.append((stagedPath, root + "/" + relative))
      let facts = String(decoding: try JSONEncoder().encode(entry.facts), as: UTF8.self)
      let texts = [
        entry.id, entry.commonName, entry.categoryRaw, entry.category.rawValue,
        entry.scientificName, entry.summary, facts, entry.rarity,
      ]
      for (offset, text) in texts.enumerated() {
        sqlite3_bind_text(statement, Int32(offset + 1), text, -1, SQLITE_TRANSIENT)
      }
      sqlite3_bind_double(statement, 9, entry.confidence)
      sqlite3_bind_text(statement, 10, entry.localGuessLabel, -1, SQLITE_TRANSIENT)
      sqlite3_bind_double(statement, 11, entry.dateDiscovered.timeIntervalSinceReferenceDate)
      sqlite3_bind_text(statement, 12, entry.notes, -1, SQLITE_TRANSIENT)
      sqlite3_bind_text(statement, 13, relative, -1, SQLITE_TRANSIENT)
      sqlite3_bind_int64(statement, 14, Int64(image.count))
      sqlite3_bind_text(statement, 15, "", -1, SQLITE_TRANSIENT)
      sqlite3_bind_double(statement, 16, Date().timeIntervalSinceReferenceDate)
      guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchFailure("insert failed") }
      sqlite3_reset(statement)
    }
    let dir = open(root + "/tmp", O_RDONLY)
    fsync(dir)
    closeDescriptor(dir)
    try exec("COMMIT")
    for (from, to) in staged { rename(from, to) }
  }

  private func writeDurably(_ data: Data, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw BenchFailure("create failed") }
    defer { closeDescriptor(fd) }
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == data.count, fsync(fd) == 0 else { throw BenchFailure("write failed") }
  }

  func firstPage(category: DexCategory?, text: String?, limit: Int) async throws -> [DexEntry] {
    var conditions: [String] = []
    if category != nil { conditions.append("categoryKey = ?1") }
    if text != nil {
      conditions.append("seq IN (SELECT rowid FROM entry_text WHERE entry_text MATCH ?2)")
    }
    let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    let statement = try prepare(
      "SELECT id, commonName, categoryRaw, scientificName, summary, facts, rarity, confidence, "
        + "localGuessLabel, discovered, notes FROM entry \(whereClause) "
        + "ORDER BY discovered DESC, id DESC LIMIT ?3")
    defer { sqlite3_finalize(statement) }
    if let category { sqlite3_bind_text(statement, 1, category.rawValue, -1, SQLITE_TRANSIENT) }
    if let text { sqlite3_bind_text(statement, 2, "\"\(text)\"*", -1, SQLITE_TRANSIENT) }
    sqlite3_bind_int(statement, 3, Int32(limit + 1))
    var entries: [DexEntry] = []
    func string(_ column: Int32) -> String {
      sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
    }
    while sqlite3_step(statement) == SQLITE_ROW {
      let facts = (try? JSONDecoder().decode([String].self, from: Data(string(5).utf8))) ?? []
      entries.append(
        DexEntry(
          id: string(0), commonName: string(1), categoryRaw: string(2), scientificName: string(3),
          summary: string(4), facts: facts, rarity: string(6),
          confidence: sqlite3_column_double(statement, 7), localGuessLabel: string(8),
          dateDiscovered: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 9)),
          notes: string(10)))
    }
    return Array(entries.prefix(limit))
  }

  func close() async throws {
    sqlite3_close_v2(db)
    db = nil
  }

  private func exec(_ sql: String) throws {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
      throw BenchFailure("sqlite: \(String(cString: sqlite3_errmsg(db)))")
    }
  }

  private func prepare(_ sql: String) throws -> OpaquePointer? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
      throw BenchFailure("prepare: \(String(cString: sqlite3_errmsg(db)))")
    }
    return statement
  }

  private func scalarInt(_ sql: String) throws -> Int {
    let statement = try prepare(sql)
    defer { sqlite3_finalize(statement) }
    return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : 0
  }
}

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
