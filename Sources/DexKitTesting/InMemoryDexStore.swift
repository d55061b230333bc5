import DexModel
import DexStorage
import Foundation

/// A ``/DexStorage/DexStoring`` that keeps everything in memory, for hosts' tests and previews.
///
/// It behaves like ``/DexStorage/DexStore`` where a host can observe the difference: ids must be
/// UUID strings and come back in canonical uppercase form; an insert is all-or-nothing; a photo
/// already stored is handled by the ``/DexStorage/DexDuplicatePolicy`` given at creation;
/// listings are newest first (then by id) and paged with ``/DexStorage/DexCursor``; a text query
/// is answered by the real store's full-text rules (SQLite's FTS5 with the same tokenizer, over
/// an in-memory database: word prefixes of the common name, scientific name, summary, facts and
/// recognised text, case and Latin diacritics folded as the store folds them); ``observe(_:)`` delivers the first page now and again after every change that
/// alters it. Nothing touches the disk, so tests need no temporary directory and leave nothing
/// behind. (It keeps photos as given and does not bound their size the way a ``/DexStorage/DexStore``
/// configuration does.)
///
/// ```swift
/// let store = InMemoryDexStore()
/// let saved = try await store.insert(entry, image: jpeg)
/// #expect(try await store.count(matching: DexQuery(category: .animal)) == 1)
/// ```
public actor InMemoryDexStore: DexStoring {
  private struct Stored {
    var entry: DexEntry
    var image: Data
    var thumbnail: Data?
  }

  private struct Observer {
    var query: DexQuery
    var continuation: AsyncThrowingStream<DexPage, any Error>.Continuation
    var lastPage: DexPage?
  }

  /// What an insert does with a photo whose bytes are already stored.
  public let duplicatePolicy: DexDuplicatePolicy
  private var stored: [String: Stored] = [:]
  private var observers: [UUID: Observer] = [:]
  /// The real store's search rules, made on the first text query.
  private var textSearch: DexTextSearch?

  /// Creates an empty store.
  ///
  /// - Parameter duplicatePolicy: what an insert does with a photo already stored; by default
  ///   ``/DexStorage/DexDuplicatePolicy/returnExisting``, as ``/DexStorage/DexStore``'s default
  ///   configuration.
  public init(duplicatePolicy: DexDuplicatePolicy = .returnExisting) {
    self.duplicatePolicy = duplicatePolicy
  }

  /// Creates a store holding `insertions`, saved as ``insert(contentsOf:)`` would.
  ///
  /// - Throws: ``/DexStorage/DexStoreError`` for an invalid entry or image, as
  ///   ``insert(contentsOf:)``.
  public init(
    _ insertions: [DexInsertion], duplicatePolicy: DexDuplicatePolicy = .returnExisting
  ) throws {
    self.duplicatePolicy = duplicatePolicy
    self.stored = try Self.saving(insertions, into: [:], policy: duplicatePolicy).stored
  }

  /// Every stored entry, newest first: for assertions that want the whole collection at once.
  public var entries: [DexEntry] { Self.sorted(stored.values.map(\.entry)) }

  /// See ``/DexStorage/DexStoring/insert(contentsOf:)``.
  ///
  /// - Throws: ``/DexStorage/DexStoreError/invalidEntry(_:)``,
  ///   ``/DexStorage/DexStoreError/invalidImage(_:)``, ``/DexStorage/DexStoreError/duplicateID(_:)``
  ///   or ``/DexStorage/DexStoreError/duplicateImage(existingID:)``; nothing of a failed call is
  ///   kept.
  public func insert(contentsOf insertions: [DexInsertion]) async throws -> [DexEntry] {
    let (saved, result) = try Self.saving(insertions, into: stored, policy: duplicatePolicy)
    stored = saved
    publish()
    return result
  }

  /// See ``/DexStorage/DexStoring/entry(id:)``.
  public func entry(id: String) async throws -> DexEntry? {
    DexStore.canonicalID(id).flatMap { stored[$0]?.entry }
  }

  /// See ``/DexStorage/DexStoring/imageData(for:)``.
  public func imageData(for id: String) async throws -> Data {
    try item(id).image
  }

  /// See ``/DexStorage/DexStoring/thumbnailData(for:)``.
  public func thumbnailData(for id: String) async throws -> Data? {
    try item(id).thumbnail
  }

  /// See ``/DexStorage/DexStoring/page(_:after:)``.
  public func page(_ query: DexQuery, after cursor: DexCursor?) async throws -> DexPage {
    try currentPage(query, after: cursor)
  }

  /// See ``/DexStorage/DexStoring/count(matching:)``.
  public func count(matching query: DexQuery) async throws -> Int {
    try stored.values.count { try matches($0.entry, query) }
  }

  /// See ``/DexStorage/DexStoring/countsByCategory()``.
  public func countsByCategory() async throws -> [DexCategory: Int] {
    stored.values.reduce(into: [:]) { counts, item in counts[item.entry.category, default: 0] += 1 }
  }

  /// See ``/DexStorage/DexStoring/update(id:_:)``.
  ///
  /// - Throws: ``/DexStorage/DexStoreError/notFound(id:)`` when there is no entry,
  ///   ``/DexStorage/DexStoreError/invalidEntry(_:)`` when `body` changes the id or stores a
  ///   non-finite number, or what `body` throws; nothing is changed then.
  public func update(
    id rawID: String, _ body: @escaping @Sendable (inout DexEntry) throws -> Void
  ) async throws -> DexEntry {
    let item = try item(rawID)
    let entry = try DexStore.edited(item.entry, by: body)
    stored[entry.id]?.entry = entry
    publish()
    return entry
  }

  /// See ``/DexStorage/DexStoring/delete(id:)``.
  @discardableResult
  public func delete(id: String) async throws -> Bool {
    guard let id = DexStore.canonicalID(id), stored.removeValue(forKey: id) != nil else {
      return false
    }
    publish()
    return true
  }

  /// See ``/DexStorage/DexStoring/observe(_:)``: the first page now, then after every insert,
  /// update or delete that changes it (identical consecutive pages are not repeated). Ends when
  /// the iterating task stops or is cancelled.
  public nonisolated func observe(_ query: DexQuery) -> AsyncThrowingStream<DexPage, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(
      of: DexPage.self, bufferingPolicy: .bufferingNewest(1))
    let token = UUID()
    let registration = Task { await self.register(token, query, continuation) }
    continuation.onTermination = { _ in
      Task {
        await registration.value
        await self.unregister(token)
      }
    }
    return stream
  }

  // MARK: Plumbing

  private func register(
    _ token: UUID, _ query: DexQuery,
    _ continuation: AsyncThrowingStream<DexPage, any Error>.Continuation
  ) {
    var observer = Observer(query: query, continuation: continuation)
    let page: DexPage
    do {
      page = try currentPage(query, after: nil)
    } catch {
      continuation.finish(throwing: error)
      return
    }
    observer.lastPage = page
    if case .terminated = continuation.yield(page) { return }
    observers[token] = observer
  }

  private func unregister(_ token: UUID) {
    observers[token] = nil
  }

  /// Sends each observer its page again when it changed.
  private func publish() {
    for (token, observer) in observers {
      let page: DexPage
      do {
        page = try currentPage(observer.query, after: nil)
      } catch {
        observer.continuation.finish(throwing: error)
        observers[token] = nil
        continue
      }
      guard page != observer.lastPage else { continue }
      observers[token]?.lastPage = page
      if case .terminated = observer.continuation.yield(page) { observers[token] = nil }
    }
  }

  private func item(_ rawID: String) throws -> Stored {
    guard let id = DexStore.canonicalID(rawID), let item = stored[id] else {
      throw DexStoreError.notFound(id: rawID)
    }
    return item
  }

  /// `stored` with `insertions` saved, and the entries the insert returns; throws before
  /// anything is kept when one insertion is refused.
  private static func saving(
    _ insertions: [DexInsertion], into stored: [String: Stored],
    policy duplicatePolicy: DexDuplicatePolicy
  ) throws -> (stored: [String: Stored], entries: [DexEntry]) {
    var staged = stored
    var result: [DexEntry] = []
    for insertion in insertions {
      var entry = insertion.entry
      guard let id = DexStore.canonicalID(entry.id) else {
        throw DexStoreError.invalidEntry("the id \"\(entry.id.prefix(64))\" is not a UUID string")
      }
      entry.id = id
      try DexStore.validate(entry)
      if insertion.image.isEmpty { throw DexStoreError.invalidImage("the image is empty") }
      if insertion.thumbnail?.isEmpty == true {
        throw DexStoreError.invalidImage("the thumbnail is empty")
      }
      guard staged[id] == nil else { throw DexStoreError.duplicateID(id) }
      if duplicatePolicy != .keepBoth,
        let existing = sorted(staged.values.filter { $0.image == insertion.image }.map(\.entry))
          .last
      {
        if duplicatePolicy == .reject {
          throw DexStoreError.duplicateImage(existingID: existing.id)
        }
        result.append(existing)
        continue
      }
      staged[id] = Stored(entry: entry, image: insertion.image, thumbnail: insertion.thumbnail)
      result.append(entry)
    }
    return (staged, result)
  }

  private func currentPage(_ query: DexQuery, after cursor: DexCursor?) throws -> DexPage {
    var matching = Self.sorted(try stored.values.map(\.entry).filter { try matches($0, query) })
    if let cursor {
      matching.removeAll { entry in
        entry.dateDiscovered > cursor.dateDiscovered
          || (entry.dateDiscovered == cursor.dateDiscovered && entry.id >= cursor.id)
      }
    }
    let entries = Array(matching.prefix(query.limit))
    let next = matching.count > query.limit ? entries.last.map(DexCursor.init(after:)) : nil
    return DexPage(entries: entries, nextCursor: next)
  }

  /// Newest first, then by descending id: the order of ``/DexStorage/DexStore``'s listings.
  private static func sorted(_ entries: [DexEntry]) -> [DexEntry] {
    entries.sorted {
      ($0.dateDiscovered, $0.id) > ($1.dateDiscovered, $1.id)
    }
  }

  private func matches(_ entry: DexEntry, _ query: DexQuery) throws -> Bool {
    if let category = query.category, entry.category != category { return false }
    guard let terms = query.searchTerms else { return true }
    if terms.isEmpty { return false }
    let search = try textSearch ?? DexTextSearch()
    textSearch = search
    return try search.matches(entry, terms: terms)
  }
}
