import DexModel
import Foundation
import GRDB
import Testing

@testable import DexStorage

/// The `v2 recognized text` migration: a store the first release wrote opens, its entries read
/// back with no recognised text and stay searchable, and text read later is searchable too.
@Suite("DexStore recognized text")
struct RecognizedTextMigrationTests {
  @Test func aFirstReleaseStoreOpensAndSearchesRecognizedText() async throws {
    try await withTemporaryDirectory { root in
      let configuration = DexStore.Configuration(directory: root.appendingPathComponent("store"))
      // A store as the first release wrote it: its schema, a row in its columns.
      let old = try DexStore(
        configuration: configuration, migrator: DexStore.firstReleaseMigrator)
      let id = UUID().uuidString
      try await old.writeWithoutTransaction { db in
        try db.execute(
          sql: """
            INSERT INTO entry (id, commonName, categoryRaw, categoryKey, scientificName, summary,
              facts, rarity, confidence, localGuessLabel, discovered, notes, imagePath, imageSize,
              imageSHA256, savedAt)
            VALUES (?, 'Robin', 'Bird', 'bird', 'Erithacus rubecula', '', '["Sings at dawn"]',
              'Common', 0.9, '', 1000, '', 'images/robin.image', 3, 'abc', 1000)
            """, arguments: [id])
      }
      let columns = try await old.read { db in try db.columns(in: "entry").map(\.name) }
      #expect(!columns.contains("recognizedText"))
      try old.close()

      let store = try DexStore(configuration: configuration)
      let robin = try #require(try await store.entry(id: id))
      #expect(robin.commonName == "Robin")
      #expect(robin.recognizedText == nil)
      // The rebuilt index still holds the old row's words.
      #expect(try await store.allEntries(matching: DexQuery(text: "dawn")).map(\.id) == [id])

      var tag = makeEntry("Lavender")
      tag.recognizedText = "Lavandula angustifolia\nEnglish Lavender\nFull sun"
      let saved = try await store.insert(tag, image: randomImage())
      #expect(try await store.entry(id: saved.id)?.recognizedText == tag.recognizedText)
      #expect(
        try await store.allEntries(matching: DexQuery(text: "angustifolia")).map(\.id) == [saved.id]
      )
      #expect(
        try await store.allEntries(matching: DexQuery(text: "full sun")).map(\.id) == [saved.id])
      #expect(try await store.allEntries(matching: DexQuery(text: "angustifolia dawn")).isEmpty)
      // Deleting removes it from the index.
      #expect(try await store.delete(id: saved.id))
      #expect(try await store.allEntries(matching: DexQuery(text: "angustifolia")).isEmpty)
      try store.close()
    }
  }

  @Test func recognizedTextSurvivesABackup() async throws {
    try await withTemporaryDirectory { root in
      let store = try openStore(root.appendingPathComponent("a"))
      var card = makeEntry("Fox card")
      card.recognizedText = "Ember Fox"
      let saved = try await store.insert(card, image: randomImage())
      let archive = root.appendingPathComponent("backup.tar")
      try await store.exportArchive(to: archive)
      try store.close()
      let restored = try openStore(root.appendingPathComponent("b"))
      #expect(try await restored.importArchive(from: archive).inserted == 1)
      #expect(try await restored.entry(id: saved.id)?.recognizedText == "Ember Fox")
      #expect(
        try await restored.allEntries(matching: DexQuery(text: "ember")).map(\.id) == [saved.id])
      try restored.close()
    }
  }
}
