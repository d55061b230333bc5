import DexModel
import DexTestSupport
import Foundation
import GRDB
import Testing

@testable import DexStorage

/// Exports and imports while other work changes the store: a delete during an export, two
/// imports of one archive at once.
@Suite("DexStore backup beside other writes")
struct DexStoreBackupConcurrencyTests {
  /// A store with four entries (the second with a thumbnail): the store, and each entry's id
  /// with its image and thumbnail bytes.
  static func filledStore(
    _ directory: URL
  ) async throws -> (
    DexStore, [(id: String, image: Data, thumbnail: Data?)]
  ) {
    let store = try openStore(directory.appendingPathComponent("A.store"))
    var saved: [(id: String, image: Data, thumbnail: Data?)] = []
    for index in 0..<4 {
      let image = randomImage(3_000 + index)
      let thumbnail = index == 1 ? randomImage(200) : nil
      let entry = try await store.insert(
        makeEntry("Entry \(index)"), image: image, thumbnail: thumbnail)
      saved.append((entry.id, image, thumbnail))
    }
    return (store, saved)
  }

  /// An entry deleted after the export pinned its files is still written whole (the export
  /// failed with `imageMissing` before): the archive imports with its photo and thumbnail.
  @Test func anEntryDeletedDuringAnExportIsWrittenWhole() async throws {
    try await withTemporaryDirectory { directory in
      let (store, saved) = try await Self.filledStore(directory)
      let victim = saved[1]
      let archive = directory.appendingPathComponent("backup.tar")
      let manifest = try await DexStore.$exportStageReached.withValue({ stage in
        if stage == .filesPinned { _ = try? await store.delete(id: victim.id) }
      }) {
        try await store.exportArchive(to: archive)
      }
      #expect(try await store.entry(id: victim.id) == nil, "the delete went through")
      #expect(manifest.items.count == 4)
      let target = try openStore(directory.appendingPathComponent("B.store"))
      #expect(try await target.importArchive(from: archive).inserted == 4)
      #expect(try await target.imageData(for: victim.id) == victim.image)
      #expect(try await target.thumbnailData(for: victim.id) == victim.thumbnail)
      let leftovers = filesUnder(directory.appendingPathComponent("A.store/tmp"))
      #expect(leftovers.isEmpty, "the export's pins are removed: \(leftovers)")
    }
  }

  /// Where the file system has no hard links, an export reads the files in place (no pins in
  /// `tmp/`) and the archive restores every photo and thumbnail.
  @Test func withoutHardLinksAnExportReadsTheFilesInPlace() async throws {
    try await withTemporaryDirectory { directory in
      let (store, saved) = try await Self.filledStore(directory)
      let archive = directory.appendingPathComponent("backup.tar")
      let pinsAtTheStart = Locked<[String]?>(nil)
      let manifest = try await DexStore.$hardLinksUnavailable.withValue(true) {
        try await DexStore.$exportStageReached.withValue({ stage in
          guard stage == .filesPinned else { return }
          let pins = filesUnder(directory.appendingPathComponent("A.store/tmp"))
          pinsAtTheStart.withLock { $0 = pins }
        }) {
          try await store.exportArchive(to: archive)
        }
      }
      #expect(pinsAtTheStart.withLock { $0 } == [], "nothing is pinned")
      #expect(manifest.items.count == 4)
      let target = try openStore(directory.appendingPathComponent("B.store"))
      #expect(try await target.importArchive(from: archive).inserted == 4)
      for entry in saved {
        #expect(try await target.imageData(for: entry.id) == entry.image)
        #expect(try await target.thumbnailData(for: entry.id) == entry.thumbnail)
      }
    }
  }

  /// Without hard links, an entry deleted while the export runs fails it with `imageMissing`
  /// (its files cannot be kept), and no archive or partial file is left behind.
  @Test func withoutHardLinksADeleteDuringAnExportFailsIt() async throws {
    try await withTemporaryDirectory { directory in
      let (store, saved) = try await Self.filledStore(directory)
      let victim = saved[1]
      let archive = directory.appendingPathComponent("backup.tar")
      let error = await #expect(throws: DexStoreError.self) {
        try await DexStore.$hardLinksUnavailable.withValue(true) {
          try await DexStore.$exportStageReached.withValue({ stage in
            if stage == .filesPinned { _ = try? await store.delete(id: victim.id) }
          }) {
            try await store.exportArchive(to: archive)
          }
        }
      }
      #expect(error == .imageMissing(id: victim.id))
      let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      #expect(!left.contains { $0.hasPrefix("backup.tar") }, "\(left)")
    }
  }

  /// An entry deleted between the export's snapshot and the pinning of its files is left out
  /// of the archive, which is whole for the others.
  @Test func anEntryDeletedBeforeItsFilesArePinnedIsLeftOut() async throws {
    try await withTemporaryDirectory { directory in
      let (store, saved) = try await Self.filledStore(directory)
      let victim = saved[2]
      let archive = directory.appendingPathComponent("backup.tar")
      let manifest = try await DexStore.$exportStageReached.withValue({ stage in
        if stage == .snapshotTaken { _ = try? await store.delete(id: victim.id) }
      }) {
        try await store.exportArchive(to: archive)
      }
      #expect(
        manifest.items.map(\.entry.id).sorted()
          == saved.map(\.id).filter { $0 != victim.id }.sorted())
      let target = try openStore(directory.appendingPathComponent("B.store"))
      #expect(try await target.importArchive(from: archive) == DexImportReport(inserted: 3))
      for entry in saved where entry.id != victim.id {
        #expect(try await target.imageData(for: entry.id) == entry.image)
      }
    }
  }

  /// An entry whose delete is half done when the export pins its files (the photo already
  /// moved to `tmp/`, the row not yet gone) is left out once the delete commits, not reported
  /// missing: the export asks again on the writer, which waits for the delete.
  /// Starts a delete's own steps for entry `id` on the writer (its photo moved to `tmp/`, a
  /// pause of 0.3 s, its row removed) and returns once the photo has moved, with the task that
  /// finishes the delete.
  static func startDelete(
    of id: String, in store: DexStore, directory: URL
  ) async -> Task<Void, any Error> {
    let root = directory.appendingPathComponent("A.store")
    let published = root.appendingPathComponent(
      StoreFiles.relativePath(id: id, kind: .image)
    ).path
    let moved = root.appendingPathComponent("tmp/\(id).image.trash-test").path
    let renamed = DispatchSemaphore(value: 0)
    let deleting = Task {
      // Signalled however the closure ends: a move that fails must fail the test, not leave
      // the wait below waiting.
      defer { renamed.signal() }
      try await store.writeWithoutTransaction { db in
        try FileManager.default.moveItem(atPath: published, toPath: moved)
        renamed.signal()
        Thread.sleep(forTimeInterval: 0.3)
        try db.execute(sql: "DELETE FROM entry WHERE id = ?", arguments: [id])
      }
    }
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        renamed.wait()
        continuation.resume()
      }
    }
    return deleting
  }

  @Test func anEntryWhoseDeleteIsInFlightIsLeftOut() async throws {
    try await withTemporaryDirectory { directory in
      let (store, saved) = try await Self.filledStore(directory)
      let victim = saved[0]
      let archive = directory.appendingPathComponent("backup.tar")
      let manifest = try await DexStore.$exportStageReached.withValue({ stage in
        guard stage == .snapshotTaken else { return }
        _ = await Self.startDelete(of: victim.id, in: store, directory: directory)
      }) {
        try await store.exportArchive(to: archive)
      }
      #expect(!manifest.items.contains { $0.entry.id == victim.id })
      #expect(manifest.items.count == 3)
    }
  }

  /// A photo read while its entry is being deleted (its file moved, its row not yet gone) is
  /// `notFound` once the delete commits, not a spurious `imageMissing`.
  @Test func aPhotoReadWhileItsEntryIsDeletedIsNotFound() async throws {
    try await withTemporaryDirectory { directory in
      let (store, saved) = try await Self.filledStore(directory)
      let victim = saved[0]
      let deleting = await Self.startDelete(of: victim.id, in: store, directory: directory)
      await #expect(throws: DexStoreError.notFound(id: victim.id)) {
        _ = try await store.imageData(for: victim.id)
      }
      try await deleting.value
      // Another entry's photo still reads.
      #expect(try await store.imageData(for: saved[1].id).isEmpty == false)
    }
  }

  /// A file missing for an entry that is still stored is a typed error, as before the pins.
  @Test func aMissingFileOfAStoredEntryIsStillAnError() async throws {
    try await withTemporaryDirectory { directory in
      let (store, saved) = try await Self.filledStore(directory)
      let path = directory.appendingPathComponent("A.store")
        .appendingPathComponent(StoreFiles.relativePath(id: saved[0].id, kind: .image)).path
      try FileManager.default.removeItem(atPath: path)
      await #expect(throws: DexStoreError.imageMissing(id: saved[0].id)) {
        try await store.exportArchive(to: directory.appendingPathComponent("backup.tar"))
      }
      #expect(filesUnder(directory.appendingPathComponent("A.store/tmp")).isEmpty)
    }
  }

  /// Two imports of one archive into one store at once both succeed, between them storing
  /// each entry once (one of them failed with `duplicateID` when the other committed between
  /// its check and its insert).
  @Test func twoImportsOfOneArchiveAtOnceBothSucceed() async throws {
    try await withTemporaryDirectory { directory in
      let (source, saved) = try await Self.filledStore(directory)
      let archive = directory.appendingPathComponent("backup.tar")
      try await source.exportArchive(to: archive)
      for round in 0..<8 {
        let target = try openStore(directory.appendingPathComponent("T\(round).store"))
        async let first = target.importArchive(from: archive)
        async let second = target.importArchive(from: archive)
        let reports = try await [first, second]
        #expect(reports.map(\.inserted).reduce(0, +) == saved.count, "round \(round)")
        #expect(reports.map(\.skipped).reduce(0, +) == saved.count, "round \(round)")
        #expect(try await target.count() == saved.count)
      }
    }
  }

  /// The import's insert leaves out an id stored since its check, where a plain insert fails.
  @Test func anImportsInsertSkipsAnIDStoredMeanwhile() async throws {
    try await withTemporaryStore { store in
      let entry = try await store.insert(makeEntry("Fern"), image: randomImage())
      let again = DexInsertion(entry: entry, image: randomImage(), thumbnail: nil)
      let fresh = DexInsertion(entry: makeEntry("Moss"), image: randomImage(), thumbnail: nil)
      await #expect(throws: DexStoreError.duplicateID(entry.id)) {
        try await store.insert(contentsOf: [again, fresh], policy: .keepBoth)
      }
      let stored = try await store.insert(
        contentsOf: [again, fresh], policy: .keepBoth, skippingKnownIDs: true)
      #expect(stored.map(\.id) == [fresh.entry.id])
      #expect(try await store.count() == 2)
    }
  }
}
