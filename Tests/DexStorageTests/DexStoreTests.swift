import DexModel
import Foundation
import Testing

@testable import DexStorage

@Suite("DexStore basics")
struct DexStoreTests {
  @Test func insertFetchAndLoadImages() async throws {
    try await withTemporaryStore { store in
      let image = randomImage(10_000)
      let thumbnail = randomImage(300)
      let entry = makeEntry("Clownfish", category: .fish, facts: ["Lives in anemones"])
      let stored = try await store.insert(entry, image: image, thumbnail: thumbnail)
      #expect(stored == entry)
      #expect(try await store.entry(id: entry.id) == entry)
      #expect(try await store.imageData(for: entry.id) == image)
      #expect(try await store.thumbnailData(for: entry.id) == thumbnail)
      // Lower-case ids find the same entry.
      #expect(try await store.entry(id: entry.id.lowercased()) == entry)
      #expect(try await store.entry(id: UUID().uuidString) == nil)
      #expect(try await store.entry(id: "../../etc/passwd") == nil)

      let bare = try await store.insert(makeEntry("Fern"), image: randomImage())
      #expect(try await store.thumbnailData(for: bare.id) == nil)
      await #expect(throws: DexStoreError.notFound(id: "00000000-0000-0000-0000-000000000000")) {
        _ = try await store.imageData(for: "00000000-0000-0000-0000-000000000000")
      }
    }
  }

  @Test func opensOffTheCallersExecutorAndReportsTheSameErrors() async throws {
    try await withTemporaryDirectory { dir in
      let store = try await DexStore.open(configuration: .init(directory: dir))
      let entry = try await store.insert(makeEntry("Moss"), image: randomImage())
      #expect(try await store.entry(id: entry.id) == entry)
      try store.close()
      // A regular file where the store directory should be is refused with a typed error.
      let blocker = dir.appendingPathComponent("not-a-directory")
      try Data("x".utf8).write(to: blocker)
      await #expect(throws: DexStoreError.self) {
        _ = try await DexStore.open(configuration: .init(directory: blocker))
      }
    }
  }

  @Test func entriesSurviveReopeningAndMovingTheDirectory() async throws {
    try await withTemporaryDirectory { dir in
      let original = dir.appendingPathComponent("Dex.store")
      let entry = makeEntry("Oak", notes: "by the river")
      let image = randomImage(5_000)
      do {
        let store = try openStore(original)
        try await store.insert(entry, image: image)
        try store.close()
      }
      let moved = dir.appendingPathComponent("Restored.store")
      try FileManager.default.moveItem(at: original, to: moved)
      let store = try openStore(moved)
      #expect(try await store.entry(id: entry.id) == entry)
      #expect(try await store.imageData(for: entry.id) == image)
      let report = try await store.verifyIntegrity()
      #expect(report.isHealthy, "\(report)")
      #expect(report.entryCount == 1)
    }
  }

  @Test func listsNewestFirstWithCursorPaging() async throws {
    try await withTemporaryStore { store in
      let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
      var insertions: [DexInsertion] = []
      for index in 0..<23 {
        // Pairs share a date so the id tie-breaker is exercised.
        let entry = makeEntry(
          "Entry \(index)", discovered: base.addingTimeInterval(Double(index / 2)))
        insertions.append(DexInsertion(entry: entry, image: randomImage(64)))
      }
      _ = try await store.insert(contentsOf: insertions)
      let expected = insertions.map(\.entry).sorted {
        ($0.dateDiscovered, $0.id) > ($1.dateDiscovered, $1.id)
      }
      var seen: [DexEntry] = []
      var cursor: DexCursor?
      var pages = 0
      repeat {
        let page = try await store.page(DexQuery(limit: 5), after: cursor)
        #expect(page.entries.count <= 5)
        seen += page.entries
        cursor = page.nextCursor
        pages += 1
      } while cursor != nil
      #expect(pages == 5)
      #expect(seen == expected)
      #expect(try await store.newest(limit: 3) == Array(expected.prefix(3)))
      #expect(try await store.allEntries().count == 23)
      // Exactly one page: no further cursor.
      let single = try await store.page(DexQuery(limit: 23), after: nil)
      #expect(single.nextCursor == nil)
      #expect(DexQuery(limit: 0).limit == 1)
      #expect(DexQuery(limit: 1_000_000).limit == DexQuery.maximumLimit)
    }
  }

  @Test func filtersByCategoryAndCountsPerCategory() async throws {
    try await withTemporaryStore { store in
      _ = try await store.insert(contentsOf: [
        DexInsertion(entry: makeEntry("Rose", category: .plant), image: randomImage()),
        DexInsertion(entry: makeEntry("Tulip", category: .plant), image: randomImage()),
        DexInsertion(entry: makeEntry("Pikachu", category: .pokemon), image: randomImage()),
        DexInsertion(
          entry: DexEntry(commonName: "Thing", categoryRaw: "not-a-category"), image: randomImage()),
      ])
      let plants = try await store.page(DexQuery(category: .plant), after: nil).entries
      #expect(Set(plants.map(\.commonName)) == ["Rose", "Tulip"])
      #expect(try await store.count(matching: DexQuery(category: .pokemon)) == 1)
      #expect(try await store.count(matching: DexQuery(category: .bird)) == 0)
      let counts = try await store.countsByCategory()
      #expect(counts == [.plant: 2, .pokemon: 1, .unknown: 1])
      // The raw value is kept as given even though it filters as unknown.
      let unknown = try await store.page(DexQuery(category: .unknown), after: nil).entries
      #expect(unknown.map(\.categoryRaw) == ["not-a-category"])
    }
  }

  @Test func searchesNamesSummaryAndFactsByWordPrefix() async throws {
    try await withTemporaryStore { store in
      _ = try await store.insert(contentsOf: [
        DexInsertion(
          entry: makeEntry(
            "Clownfish", category: .fish, summary: "Orange reef fish.",
            facts: ["Lives among sea anemones"], scientificName: "Amphiprion ocellaris"),
          image: randomImage()),
        DexInsertion(
          entry: makeEntry("Crème brûlée", category: .food, summary: "A custard dessert."),
          image: randomImage()),
        DexInsertion(
          entry: makeEntry("Red fox", category: .animal, summary: "A clever orange mammal."),
          image: randomImage()),
      ])
      func names(_ text: String, _ category: DexCategory? = nil) async throws -> Set<String> {
        Set(
          try await store.page(DexQuery(category: category, text: text), after: nil).entries.map(
            \.commonName))
      }
      #expect(try await names("clown") == ["Clownfish"])
      #expect(try await names("ANEMONE") == ["Clownfish"])
      #expect(try await names("amphiprion") == ["Clownfish"])
      #expect(try await names("orange") == ["Clownfish", "Red fox"])
      #expect(try await names("orange", .animal) == ["Red fox"])
      #expect(try await names("orange reef") == ["Clownfish"])
      #expect(try await names("creme brulee") == ["Crème brûlée"])
      #expect(try await names("zebra").isEmpty)
      // Operators and quotes are plain text, not FTS syntax errors.
      #expect(try await names("\"orange\" OR NEAR(") == [])
      #expect(try await names("!!!").isEmpty)
      #expect(try await names("   ").count == 3)
      #expect(try await store.count(matching: DexQuery(text: "orange")) == 2)
    }
  }

  @Test func updatesRenameNotesAndKeepSearchInSync() async throws {
    try await withTemporaryStore { store in
      let entry = try await store.insert(
        makeEntry("Mushroom", category: .fungus), image: randomImage())
      let renamed = try await store.rename(id: entry.id, to: "Fly agaric")
      #expect(renamed.commonName == "Fly agaric")
      let noted = try await store.setNotes("Do not eat", for: entry.id)
      #expect(noted.notes == "Do not eat")
      #expect(noted.commonName == "Fly agaric")
      #expect(try await store.entry(id: entry.id) == noted)
      #expect(try await store.count(matching: DexQuery(text: "agaric")) == 1)
      #expect(try await store.count(matching: DexQuery(text: "mushroom")) == 0)

      var replacement = noted
      replacement.categoryRaw = DexCategory.plant.rawValue
      replacement.facts = ["Reclassified"]
      try await store.update(replacement)
      #expect(try await store.countsByCategory() == [.plant: 1])
      #expect(try await store.count(matching: DexQuery(text: "reclassified")) == 1)

      await #expect(throws: DexStoreError.invalidEntry("an update cannot change the entry's id")) {
        try await store.update(id: entry.id) { $0.id = UUID().uuidString }
      }
      let missing = UUID().uuidString
      await #expect(throws: DexStoreError.notFound(id: missing)) {
        try await store.rename(id: missing, to: "x")
      }
      await #expect(throws: DexStoreError.invalidEntry("the confidence is not a finite number")) {
        try await store.update(id: entry.id) { $0.confidence = .nan }
      }
      #expect(try await store.entry(id: entry.id) == replacement)
    }
  }

  @Test func deleteRemovesRowAndFiles() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      let keep = try await store.insert(
        makeEntry("Keep"), image: randomImage(), thumbnail: randomImage(10))
      let gone = try await store.insert(
        makeEntry("Gone"), image: randomImage(), thumbnail: randomImage(10))
      let before = filesUnder(dir.appendingPathComponent("images"))
      #expect(before.count == 4)
      #expect(try await store.delete(id: gone.id))
      #expect(try await store.delete(id: gone.id) == false)
      #expect(try await store.delete(id: "not a uuid") == false)
      #expect(try await store.entry(id: gone.id) == nil)
      let after = filesUnder(dir.appendingPathComponent("images"))
      #expect(after.count == 2)
      #expect(after.allSatisfy { $0.contains(keep.id) })
      #expect(filesUnder(dir.appendingPathComponent("tmp")).isEmpty)
      #expect(try await store.verifyIntegrity().isHealthy)
    }
  }

  @Test(arguments: DexDuplicatePolicy.allCases)
  func duplicatePhotosFollowThePolicy(_ policy: DexDuplicatePolicy) async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir, policy: policy)
      let photo = randomImage(4_000)
      let first = try await store.insert(makeEntry("First"), image: photo)
      let second = makeEntry("Second")
      switch policy {
      case .reject:
        await #expect(throws: DexStoreError.duplicateImage(existingID: first.id)) {
          try await store.insert(second, image: photo)
        }
        #expect(try await store.count() == 1)
      case .keepBoth:
        let stored = try await store.insert(second, image: photo)
        #expect(stored.id == second.id)
        #expect(try await store.count() == 2)
      case .returnExisting:
        let stored = try await store.insert(second, image: photo)
        #expect(stored == first)
        #expect(try await store.count() == 1)
      }
      #expect(filesUnder(dir.appendingPathComponent("tmp")).isEmpty)
    }
  }

  @Test func badInputsGetTypedErrorsAndStoreNothing() async throws {
    try await withTemporaryDirectory { dir in
      let store = try DexStore(
        configuration: .init(directory: dir, maximumImageBytes: 10_000))
      var badID = makeEntry("Bad id")
      badID.id = "../escape"
      await #expect(throws: DexStoreError.invalidEntry("the id \"../escape\" is not a UUID string"))
      {
        try await store.insert(badID, image: randomImage())
      }
      await #expect(throws: DexStoreError.invalidImage("the image is empty")) {
        try await store.insert(makeEntry("Empty"), image: Data())
      }
      await #expect(throws: DexStoreError.self) {
        try await store.insert(makeEntry("Huge"), image: randomImage(10_001))
      }
      await #expect(throws: DexStoreError.invalidImage("the thumbnail is empty")) {
        try await store.insert(makeEntry("Empty thumb"), image: randomImage(), thumbnail: Data())
      }
      var nan = makeEntry("Sorrel")
      nan.confidence = .nan
      await #expect(throws: DexStoreError.invalidEntry("the confidence is not a finite number")) {
        try await store.insert(nan, image: randomImage())
      }
      // One bad element fails the whole batch, leaving nothing behind.
      let good = makeEntry("Good")
      await #expect(throws: DexStoreError.duplicateID(good.id)) {
        _ = try await store.insert(contentsOf: [
          DexInsertion(entry: good, image: randomImage()),
          DexInsertion(entry: good, image: randomImage()),
        ])
      }
      let stored = try await store.insert(good, image: randomImage())
      await #expect(throws: DexStoreError.duplicateID(stored.id)) {
        _ = try await store.insert(contentsOf: [
          DexInsertion(entry: makeEntry("Fine"), image: randomImage()),
          DexInsertion(entry: good, image: randomImage()),
        ])
      }
      #expect(try await store.count() == 1)
      #expect(filesUnder(dir.appendingPathComponent("images")).count == 1)
      #expect(filesUnder(dir.appendingPathComponent("tmp")).isEmpty)
    }
  }

  @Test func closedStoreThrowsClosed() async throws {
    try await withTemporaryStore { store in
      try store.close()
      await #expect(throws: DexStoreError.closed) { _ = try await store.count() }
      await #expect(throws: DexStoreError.closed) {
        try await store.insert(makeEntry("Late"), image: randomImage())
      }
      try store.close()  // closing twice is harmless
    }
  }

  @Test func detectsAnImageChangedBehindItsBack() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      let entry = try await store.insert(
        makeEntry("Quartz", category: .mineral), image: randomImage())
      let path = dir.appendingPathComponent(StoreFiles.relativePath(id: entry.id, kind: .image))
      try randomImage().write(to: path)
      await #expect(throws: DexStoreError.imageCorrupted(id: entry.id)) {
        _ = try await store.imageData(for: entry.id)
      }
      try FileManager.default.removeItem(at: path)
      await #expect(throws: DexStoreError.imageMissing(id: entry.id)) {
        _ = try await store.imageData(for: entry.id)
      }
      let report = try await store.verifyIntegrity()
      #expect(report.missingImageIDs == [entry.id])
      #expect(!report.isHealthy)
    }
  }

  @Test func removesUnreferencedFiles() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      let entry = try await store.insert(makeEntry("Kept"), image: randomImage())
      let stray = dir.appendingPathComponent("images/ab/stray.image")
      try randomImage().write(to: stray)
      #expect(try await store.verifyIntegrity().unreferencedFiles == ["images/ab/stray.image"])
      #expect(try await store.removeUnreferencedFiles() == 1)
      #expect(!FileManager.default.fileExists(atPath: stray.path))
      #expect(try await store.imageData(for: entry.id).count == 2_048)
    }
  }

  @Test func observationDeliversNewPagesAfterChanges() async throws {
    try await withTemporaryStore { store in
      var iterator = store.observe(DexQuery(category: .bird)).makeAsyncIterator()
      let initial = try await iterator.next()
      #expect(initial?.entries.isEmpty == true)
      let robin = try await store.insert(makeEntry("Robin", category: .bird), image: randomImage())
      let afterInsert = try await iterator.next()
      #expect(afterInsert?.entries == [robin])
      try await store.rename(id: robin.id, to: "European robin")
      let afterRename = try await iterator.next()
      #expect(afterRename?.entries.first?.commonName == "European robin")
      try await store.delete(id: robin.id)
      let afterDelete = try await iterator.next()
      #expect(afterDelete?.entries.isEmpty == true)
    }
  }

  @Test func observationSeesWritesFromAnotherStoreOnTheSameDirectory() async throws {
    try await withTemporaryDirectory { dir in
      let observer = try DexStore(
        configuration: .init(directory: dir, externalChangeCheckInterval: 0.05))
      let writer = try openStore(dir)
      let pages = PageLog()
      let task = Task { for try await page in observer.observe(DexQuery()) { pages.append(page) } }
      defer { task.cancel() }
      #expect(await pages.wait { $0.count == 1 && $0[0].entries.isEmpty })
      let owl = try await writer.insert(makeEntry("Owl", category: .bird), image: randomImage())
      #expect(await pages.wait { $0.last?.entries.map(\.id) == [owl.id] })
      try await writer.delete(id: owl.id)
      #expect(await pages.wait { $0.last?.entries.isEmpty == true && $0.count == 3 })
    }
  }

  @Test func closingTheStoreEndsItsObservationWithClosed() async throws {
    try await withTemporaryDirectory { dir in
      let store = try DexStore(
        configuration: .init(directory: dir, externalChangeCheckInterval: 0.05))
      let pages = PageLog()
      let task = Task { () -> (any Error)? in
        do {
          for try await page in store.observe(DexQuery()) { pages.append(page) }
          return nil
        } catch {
          return error
        }
      }
      #expect(await pages.wait { $0.count == 1 })
      try store.close()
      let ending = await task.value
      #expect(ending as? DexStoreError == .closed)
    }
  }

  @Test func theObservationIntervalIsSanitized() {
    func interval(_ value: TimeInterval?) -> TimeInterval? {
      DexStore.Configuration(externalChangeCheckInterval: value).externalChangeCheckInterval
    }
    #expect(interval(2) == 2)
    #expect(interval(0.001) == 0.01)
    #expect(interval(0) == nil)
    #expect(interval(-1) == nil)
    #expect(interval(.infinity) == nil)
    #expect(interval(.nan) == nil)
    #expect(interval(nil) == nil)
    #expect(DexStore.Configuration().externalChangeCheckInterval == 1)
  }

  @Test func withoutTheCheckOnlyThisInstancesWritesAreSeen() async throws {
    try await withTemporaryDirectory { dir in
      let observer = try DexStore(
        configuration: .init(directory: dir, externalChangeCheckInterval: nil))
      let writer = try openStore(dir)
      let pages = PageLog()
      let task = Task { for try await page in observer.observe(DexQuery()) { pages.append(page) } }
      defer { task.cancel() }
      #expect(await pages.wait { $0.count == 1 })
      let owl = try await writer.insert(makeEntry("Owl"), image: randomImage())
      #expect(!(await pages.wait(upTo: .milliseconds(500)) { $0.count > 1 }))
      // The next write through the observing instance brings both.
      let fern = try await observer.insert(makeEntry("Fern"), image: randomImage())
      #expect(await pages.wait { Set($0.last?.entries.map(\.id) ?? []) == [owl.id, fern.id] })
    }
  }

  @Test func contentHashMatchesKnownVectors() {
    #expect(
      DexStore.contentHash(of: Data())
        == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      DexStore.contentHash(of: Data("abc".utf8))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      DexStore.contentHash(
        of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
      DexStore.contentHash(of: Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }
}
