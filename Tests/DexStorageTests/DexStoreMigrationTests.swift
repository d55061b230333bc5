import DexModel
import Foundation
import GRDB
import Testing

@testable import DexStorage

/// Entries are mapped by column name in one place (`EntryRecord`), so a later version that adds
/// a column opens, reads, edits, backs up and restores the stores this version wrote.
@Suite("DexStore migrations")
struct DexStoreMigrationTests {
  /// This version's migrations plus one a later version could append.
  static var laterMigrator: DatabaseMigrator {
    var migrator = DexStore.migrator
    migrator.registerMigration("later: entry mood") { db in
      try db.alter(table: "entry") { table in
        table.add(column: "mood", .text).notNull().defaults(to: "")
      }
    }
    return migrator
  }

  @Test func aColumnAddedByAMigrationKeepsOldStoresOpen() async throws {
    try await withTemporaryDirectory { root in
      let directory = root.appendingPathComponent("store")
      let configuration = DexStore.Configuration(directory: directory)
      // Written by this version: no `mood` column.
      let old = try DexStore(configuration: configuration)
      let robin = try await old.insert(
        makeEntry("Robin", category: .bird, facts: ["Sings at dawn"]), image: randomImage(),
        thumbnail: randomImage(64))
      let oak = try await old.insert(makeEntry("Oak"), image: randomImage())
      try old.close()

      // Opened by the later version: the migration runs and every entry reads back as saved.
      let later = try DexStore(configuration: configuration, migrator: Self.laterMigrator)
      let columns = try await later.read { db in try db.columns(in: "entry").map(\.name) }
      #expect(columns.contains("mood"))
      #expect(try await later.entry(id: robin.id) == robin)
      #expect(try await later.newest() == [oak, robin])
      #expect(try await later.allEntries(matching: DexQuery(text: "dawn")) == [robin])
      // Writes fill the new column with its default; edits keep the photo's columns.
      let fern = try await later.insert(makeEntry("Fern"), image: randomImage())
      let renamed = try await later.rename(id: robin.id, to: "European robin")
      #expect(renamed.commonName == "European robin")
      #expect(try await later.thumbnailData(for: robin.id) != nil)
      let moods = try await later.read { db in
        try String.fetchAll(db, sql: "SELECT mood FROM entry ORDER BY seq")
      }
      #expect(moods == ["", "", ""])
      // The backup goes through the same mapping.
      let archive = root.appendingPathComponent("backup.tar")
      try await later.exportArchive(to: archive)
      try later.close()
      let restored = try DexStore(
        configuration: DexStore.Configuration(directory: root.appendingPathComponent("restored")))
      let report = try await restored.importArchive(from: archive)
      #expect(report.inserted == 3)
      let restoredEntries = try await restored.newest()
      #expect(Set(restoredEntries.map(\.id)) == [fern.id, oak.id, robin.id])
      #expect(restoredEntries.first { $0.id == robin.id } == renamed)
      try restored.close()

      // This version refuses the later one's store instead of misreading it.
      #expect(throws: DexStoreError.unsupportedSchema(path: directory.path + "/Dex.sqlite")) {
        try DexStore(configuration: configuration)
      }
    }
  }

  @Test func aDamagedFactsColumnIsACorruptDatabaseNotACrash() async throws {
    try await withTemporaryDirectory { directory in
      let store = try DexStore(directory: directory)
      let saved = try await store.insert(makeEntry("Robin"), image: randomImage())
      try await store.writeWithoutTransaction { db in
        try db.execute(
          sql: #"UPDATE entry SET facts = '{"not": "a list"}' WHERE id = ?"#, arguments: [saved.id])
      }
      let error = await #expect(throws: DexStoreError.self) { try await store.entry(id: saved.id) }
      guard case .corruptDatabase(_, let detail)? = error else {
        Issue.record("expected corruptDatabase, got \(String(describing: error))")
        return
      }
      #expect(detail.contains("facts"))
      try store.close()
    }
  }
}
