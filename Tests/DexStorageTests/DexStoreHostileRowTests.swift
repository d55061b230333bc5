import DexModel
import Foundation
import Testing

@testable import DexStorage

/// A store whose rows or folders were changed behind its back (a restored, foreign or damaged
/// database, a folder someone made): nothing it does with them reaches beyond an entry's own
/// files, and it still opens.
@Suite struct DexStoreHostileRowTests {
  /// Rows naming the database, the images folder and another entry's photo: deleting them
  /// deletes only their rows, and every other entry, the database and the photos stay.
  @Test func aRowNamingAnotherFileNeverTakesItWithIt() async throws {
    try await withTemporaryDirectory { directory in
      let store = try DexStore(directory: directory)
      let first = try await store.insert(makeEntry("Fern"), image: randomImage())
      let second = try await store.insert(makeEntry("Oak"), image: randomImage())
      let kept = try await store.insert(makeEntry("Robin"), image: randomImage())
      let neighbour = StoreFiles.relativePath(id: kept.id, kind: .image)
      try await store.writeWithoutTransaction { db in
        try db.execute(
          sql: "UPDATE entry SET thumbnailPath = 'Dex.sqlite', imagePath = ? WHERE id = ?",
          arguments: [neighbour, first.id])
        try db.execute(
          sql: "UPDATE entry SET imagePath = 'images' WHERE id = ?", arguments: [second.id])
      }
      // Reading them is a corrupt database, not another entry's bytes.
      await #expect(throws: DexStoreError.self) { try await store.imageData(for: first.id) }
      #expect(try await store.delete(id: first.id))
      #expect(try await store.delete(id: second.id))
      #expect(FileManager.default.fileExists(atPath: directory.path + "/Dex.sqlite"))
      #expect(FileManager.default.fileExists(atPath: directory.path + "/images"))
      #expect(try await store.count() == 1)
      #expect(try await store.imageData(for: kept.id).count == 2_048)
      try store.close()
      let reopened = try DexStore(directory: directory)
      #expect(try await reopened.count() == 1)
      #expect(try await reopened.verifyIntegrity().isHealthy)
      try reopened.close()
    }
  }

  /// A folder in `tmp/` (under any name, a journal file's too) is left there with a warning;
  /// the store opens.
  @Test func aFolderInTmpDoesNotKeepTheStoreShut() async throws {
    try await withTemporaryDirectory { directory in
      let store = try DexStore(directory: directory)
      try await store.insert(makeEntry("Fern"), image: randomImage())
      try store.close()
      for name in ["junk", UUID().uuidString + ".image"] {
        try FileManager.default.createDirectory(
          atPath: directory.path + "/tmp/" + name, withIntermediateDirectories: false)
      }
      let reopened = try DexStore(directory: directory)
      #expect(try await reopened.count() == 1)
      try reopened.close()
    }
  }

  /// No path saves an entry that names nothing: not an insert, not an edit, not an import.
  @Test func anEntryThatNamesNothingIsRefusedEverywhere() async throws {
    try await withTemporaryDirectory { directory in
      let source = try openStore(directory.appendingPathComponent("A.store"))
      for name in ["", "  ", "Unknown", "unknown"] {
        await #expect(throws: DexStoreError.self, "\(name)") {
          try await source.insert(makeEntry(name), image: randomImage())
        }
      }
      // An "Unknown" that explains itself is kept, as the reply parser keeps it.
      try await source.insert(
        makeEntry("Unknown", summary: "The photo is too dark to tell."), image: randomImage())
      let saved = try await source.insert(makeEntry("Tomato"), image: randomImage())
      await #expect(throws: DexStoreError.self) {
        try await source.update(id: saved.id) { $0.commonName = " " }
      }
      // An entry saved before the rule was this strict stays editable in its other fields.
      let old = try await source.insert(makeEntry("Placeholder later"), image: randomImage())
      try await source.writeWithoutTransaction { db in
        try db.execute(
          sql: "UPDATE entry SET commonName = 'N/A', summary = '' WHERE id = ?", arguments: [old.id]
        )
      }
      let noted = try await source.update(id: old.id) { $0.notes = "seen in the garden" }
      #expect(noted.commonName == "N/A" && noted.notes == "seen in the garden")
      _ = try await source.delete(id: old.id)
      let archive = directory.appendingPathComponent("backup.tar")
      try await source.exportArchive(to: archive)
      // The same archive with "Tomato" renamed to nothing.
      var bytes = [UInt8](try Data(contentsOf: archive))
      let needle = Array(#""commonName":"Tomato""#.utf8)
      let at = try #require(
        bytes.indices.first { bytes[$0...].starts(with: needle) })
      bytes.replaceSubrange(at..<at + needle.count, with: Array(#""commonName":"      ""#.utf8))
      let tampered = directory.appendingPathComponent("tampered.tar")
      try Data(bytes).write(to: tampered)
      let target = try openStore(directory.appendingPathComponent("B.store"))
      let report = try await target.importArchive(from: tampered)
      #expect(report == DexImportReport(inserted: 1, skipped: 0, refused: 1))
      #expect(try await target.count() == 1)
    }
  }

  /// An archive's entries are stored bounded: a confidence out of 0...1 clamped (it crashed
  /// every display that printed a percentage), fields cut to the reply parser's lengths. An
  /// insert with a confidence out of range is refused.
  @Test func anImportedEntryIsStoredBounded() async throws {
    try await withTemporaryDirectory { directory in
      let source = try openStore(directory.appendingPathComponent("A.store"))
      await #expect(throws: DexStoreError.invalidEntry("the confidence is not between 0 and 1")) {
        var entry = makeEntry("Fern")
        entry.confidence = 1.5
        try await source.insert(entry, image: randomImage())
      }
      let long = String(repeating: "n", count: 5_000)
      var fern = makeEntry("Fern " + long, summary: long)
      let huge = String(repeating: "t", count: 150_000)
      (fern.notes, fern.recognizedText) = (huge, huge)
      (fern.rarity, fern.localGuessLabel) = (long, long)
      try await source.insert(fern, image: randomImage())
      let archive = directory.appendingPathComponent("backup.tar")
      try await source.exportArchive(to: archive)
      var bytes = [UInt8](try Data(contentsOf: archive))
      let needle = Array(#""confidence":0.8"#.utf8)
      let at = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) })
      bytes.replaceSubrange(at..<at + needle.count, with: Array(#""confidence":9e9"#.utf8))
      let tampered = directory.appendingPathComponent("tampered.tar")
      try Data(bytes).write(to: tampered)
      let target = try openStore(directory.appendingPathComponent("B.store"))
      #expect(try await target.importArchive(from: tampered).inserted == 1)
      let imported = try #require(try await target.page(DexQuery()).entries.first)
      #expect(imported.confidence == 1)
      #expect(imported.commonName.count == 200 && imported.commonName.hasPrefix("Fern n"))
      #expect(imported.summary.count == 4_000)
      #expect(imported.notes.count == 100_000 && imported.recognizedText?.count == 100_000)
      #expect(imported.rarity.count == 64 && imported.localGuessLabel.count == 200)
    }
  }

  /// Foundation on Linux wraps a write's system error in a Cocoa error: a full disk is still
  /// `diskFull`, not an I/O error.
  @Test func aWrappedSystemErrorKeepsItsCode() {
    let wrapped = NSError(
      domain: NSCocoaErrorDomain, code: CocoaError.fileWriteUnknown.rawValue,
      userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))])
    #expect(StoreFiles.systemCode(of: wrapped) == ENOSPC)
    #expect(StoreFiles.systemCode(of: CocoaError(.fileWriteOutOfSpace)) == ENOSPC)
    #expect(
      StoreFiles.systemCode(of: NSError(domain: NSPOSIXErrorDomain, code: Int(EROFS))) == EROFS)
    #expect(StoreFiles.systemCode(of: CocoaError(.fileReadUnknown)) == EIO)
    #expect(
      StoreFiles.error(StoreFiles.systemCode(of: wrapped), "write", "/x") == .diskFull(path: "/x"))
  }
}
