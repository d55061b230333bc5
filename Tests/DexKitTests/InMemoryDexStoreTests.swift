import DexKit
import DexKitTesting
import Foundation
import Testing

/// The in-memory store hosts test with must behave as the real one: the same script of
/// operations runs against a `DexStore` in a temporary directory and an `InMemoryDexStore`, and
/// every answer is compared.
@Suite("InMemoryDexStore agrees with DexStore")
struct InMemoryDexStoreTests {
  static func entry(
    _ name: String, _ category: DexCategory, facts: [String] = [], seconds: Double,
    id: String = UUID().uuidString.lowercased()
  ) -> DexEntry {
    DexEntry(
      id: id, commonName: name, categoryRaw: category.rawValue, summary: "Seen near the pond.",
      facts: facts, confidence: 0.8, dateDiscovered: Date(timeIntervalSinceReferenceDate: seconds))
  }

  /// A fixed id, so that both stores break date ties the same way.
  static func id(_ number: Int) -> String { "0A0A0A0A-0000-4000-8000-00000000000\(number)" }

  /// Runs the script on `store` and returns everything it observed, as text lines.
  static func script(_ store: some DexStoring) async throws -> [String] {
    var log: [String] = []
    func record(_ label: String, _ value: Any) { log.append("\(label): \(value)") }
    func names(_ entries: [DexEntry]) -> [String] { entries.map(\.commonName) }

    let photoA = Data("photo A".utf8)
    let photoB = Data("photo B".utf8)
    let sameSecond = 700_000_000.0
    let robinID = id(1).lowercased()
    let saved = try await store.insert(contentsOf: [
      DexInsertion(
        entry: entry("Robin", .bird, facts: ["Sings at dawn"], seconds: sameSecond, id: robinID),
        image: photoA, thumbnail: Data("thumb".utf8)),
      DexInsertion(
        entry: entry("Élevé fern", .plant, seconds: sameSecond, id: Self.id(2)), image: photoB),
      DexInsertion(
        entry: entry("Clownfish", .fish, seconds: sameSecond - 10, id: Self.id(3)),
        image: Data([1])),
      DexInsertion(
        entry: entry("Oak", .plant, seconds: sameSecond + 10, id: Self.id(4)), image: Data([2])),
      // Text where a hand-written word matcher and FTS5's unicode61 tokenizer disagree: full
      // case folding ("ß" is not "ss" to FTS5), diacritics outside Latin script ("й" keeps its
      // breve), compatibility ligatures ("ﬁ" is not "fi"), and an apostrophe inside a word.
      DexInsertion(
        entry: entry(
          "Straße ﬁsh", .fish, facts: ["Tastes of йод", "The keeper's pet"],
          seconds: sameSecond - 20, id: Self.id(5)),
        image: Data([3])),
    ])
    record("ids are canonical", saved.allSatisfy { $0.id == $0.id.uppercased() })
    record("robin", try await store.entry(id: robinID.lowercased())?.commonName ?? "nil")

    // Same photo again: returnExisting gives the stored entry.
    let again = try await store.insert(entry("Robin again", .bird, seconds: 1), image: photoA)
    record("duplicate photo", again.commonName)
    // Nothing of a failed batch is kept.
    await record(
      "bad batch",
      (try? store.insert(contentsOf: [
        DexInsertion(entry: entry("Kept?", .bird, seconds: 5), image: Data([9])),
        DexInsertion(entry: entry("Bad id", .bird, seconds: 6, id: "not-a-uuid"), image: Data([8])),
      ])) == nil)
    record("count", try await store.count(matching: DexQuery()))

    // Paging, newest first, ties broken by id.
    var pages: [[String]] = []
    var cursor: DexCursor?
    repeat {
      let page = try await store.page(DexQuery(limit: 2), after: cursor)
      pages.append(names(page.entries))
      cursor = page.nextCursor
    } while cursor != nil
    record("pages", pages)
    record("plants", names(try await store.allEntries(matching: DexQuery(category: .plant))))
    record("newest", names(try await store.newest(limit: 3)))
    for text in [
      "clown", "ELEVE", "sings", "pond dawn", "zebra", "   ", "!!", "strass", "STRAß", "fish",
      "ﬁsh", "иод", "йод", "keeper", "keepers", "keeper s",
    ] {
      record("search \(text)", names(try await store.allEntries(matching: DexQuery(text: text))))
      record("count \(text)", try await store.count(matching: DexQuery(text: text)))
    }
    record(
      "by category", try await store.countsByCategory().sorted { $0.key.rawValue < $1.key.rawValue }
    )
    record("image", try await store.imageData(for: robinID) == photoA)
    record(
      "thumbnail",
      try await store.thumbnailData(for: robinID).map { String(decoding: $0, as: UTF8.self) }
        ?? "nil")
    record("no thumbnail", try await store.thumbnailData(for: saved[2].id) == nil)

    // Edits.
    record("renamed", try await store.rename(id: robinID, to: "European robin").commonName)
    await record(
      "id change refused",
      (try? store.update(id: robinID) { $0.id = UUID().uuidString }) == nil)
    await record("missing update", (try? store.rename(id: UUID().uuidString, to: "x")) == nil)
    record("search robin", names(try await store.allEntries(matching: DexQuery(text: "european"))))
    record("deleted", try await store.delete(id: saved[3].id))
    record("deleted again", try await store.delete(id: saved[3].id))
    await record("missing image", (try? store.imageData(for: saved[3].id)) == nil)
    record("final", names(try await store.newest()))
    return log
  }

  @Test func theSameScriptGivesTheSameAnswers() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("InMemoryDexStoreTests-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let real = try await DexStore.open(configuration: .init(directory: directory))
    let expected = try await Self.script(real)
    try real.close()
    let actual = try await Self.script(InMemoryDexStore())
    #expect(actual == expected)
    #expect(expected.count > 30)
  }

  @Test func observationDeliversChangedPagesOnly() async throws {
    let store = InMemoryDexStore()
    var iterator = store.observe(DexQuery(category: .bird)).makeAsyncIterator()
    #expect(try await iterator.next()?.entries == [])
    let robin = try await store.insert(Self.entry("Robin", .bird, seconds: 1), image: Data([1]))
    #expect(try await iterator.next()?.entries == [robin])
    // A plant does not change the birds' page: the next page seen is the rename's.
    try await store.insert(Self.entry("Fern", .plant, seconds: 2), image: Data([2]))
    let renamed = try await store.rename(id: robin.id, to: "Robin redbreast")
    #expect(try await iterator.next()?.entries == [renamed])
  }

  @Test func policiesAndInvalidInputAreRefusedAsTheRealStoreDoes() async throws {
    let strict = InMemoryDexStore(duplicatePolicy: .reject)
    let first = try await strict.insert(Self.entry("A", .bird, seconds: 1), image: Data([7]))
    await #expect(throws: DexStoreError.duplicateImage(existingID: first.id)) {
      try await strict.insert(Self.entry("B", .bird, seconds: 2), image: Data([7]))
    }
    await #expect(throws: DexStoreError.duplicateID(first.id)) {
      try await strict.insert(
        Self.entry("C", .bird, seconds: 3, id: first.id.lowercased()), image: Data([6]))
    }
    await #expect(throws: DexStoreError.invalidImage("the image is empty")) {
      try await strict.insert(Self.entry("D", .bird, seconds: 4), image: Data())
    }
    var nan = Self.entry("E", .bird, seconds: 5)
    nan.confidence = .nan
    await #expect(throws: DexStoreError.self) {
      try await strict.insert(nan, image: Data([5]))
    }
    let both = InMemoryDexStore(duplicatePolicy: .keepBoth)
    try await both.insert(Self.entry("A", .bird, seconds: 1), image: Data([7]))
    try await both.insert(Self.entry("B", .bird, seconds: 2), image: Data([7]))
    #expect(await both.entries.map(\.commonName) == ["B", "A"])
  }

  @Test func samplePhotosAreRealJPEGsOfTheirCategory() async throws {
    for sample in SamplePhoto.allCases {
      let data = try sample.data
      #expect(data.starts(with: [0xFF, 0xD8, 0xFF]), "\(sample)")
      // The category check needs the bundled classifier's default (Linux) decoder.
      #if os(Linux) && SystemImageCodecs
        let guess = await ImageClassifier().classify(imageData: data)
        #expect(guess?.category == sample.category, "\(sample): \(String(describing: guess))")
      #endif
    }
  }
}
