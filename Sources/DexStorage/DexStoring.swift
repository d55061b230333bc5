import DexModel
import Foundation

/// The capability of keeping a collection of ``/DexModel/DexEntry`` values with their photos.
///
/// A scanner saves into it, a grid lists and observes it, a detail page loads one photo on
/// demand. ``DexStore`` is the file-backed conformance; tests and previews can provide their own.
/// Every requirement is `async` so conformances may do blocking I/O off the caller's executor.
public protocol DexStoring: Sendable {
  /// Saves `insertions` in one all-or-nothing step and returns the stored entries, in order.
  ///
  /// Under ``DexDuplicatePolicy/returnExisting`` an element whose photo is already stored yields
  /// the existing entry instead (compare its `id` with yours to tell). Nothing of a failed call is
  /// visible afterwards.
  func insert(contentsOf insertions: [DexInsertion]) async throws -> [DexEntry]

  /// The entry with `id`, or `nil` when there is none.
  func entry(id: String) async throws -> DexEntry?

  /// The full-size photo bytes of entry `id`; throws ``DexStoreError/notFound(id:)`` if absent.
  func imageData(for id: String) async throws -> Data

  /// The thumbnail bytes of entry `id`, or `nil` when it was saved without one.
  func thumbnailData(for id: String) async throws -> Data?

  /// One page of entries matching `query`, newest first, starting after `cursor`.
  func page(_ query: DexQuery, after cursor: DexCursor?) async throws -> DexPage

  /// How many entries match `query` (its ``DexQuery/limit`` is ignored).
  func count(matching query: DexQuery) async throws -> Int

  /// How many entries each category holds; categories without entries are absent.
  func countsByCategory() async throws -> [DexCategory: Int]

  /// Atomically reads entry `id`, lets `body` edit it (rename, notes, …) and saves the result.
  ///
  /// The `id` cannot be changed. Throws ``DexStoreError/notFound(id:)`` when there is no entry.
  func update(
    id: String, _ body: @escaping @Sendable (inout DexEntry) throws -> Void
  ) async throws -> DexEntry

  /// Removes entry `id` and its image files; returns `false` when there was no such entry.
  @discardableResult
  func delete(id: String) async throws -> Bool

  /// The first page of `query`, delivered now and again after every change that affects it,
  /// so a live grid can refresh the way SwiftUI's `@Query` does.
  func observe(_ query: DexQuery) -> AsyncThrowingStream<DexPage, any Error>
}

extension DexStoring {
  /// Saves one entry with its photo and optional thumbnail and returns the stored entry.
  ///
  /// See ``insert(contentsOf:)`` for the duplicate-photo behaviour.
  @discardableResult
  public func insert(
    _ entry: DexEntry, image: Data, thumbnail: Data? = nil
  ) async throws
    -> DexEntry
  {
    let stored = try await insert(contentsOf: [
      DexInsertion(entry: entry, image: image, thumbnail: thumbnail)
    ])
    guard let first = stored.first else { throw DexStoreError.notFound(id: entry.id) }
    return first
  }

  /// Replaces the stored fields of `entry` (matched by id) with its values.
  @discardableResult
  public func update(_ entry: DexEntry) async throws -> DexEntry {
    try await update(id: entry.id) { stored in
      let id = stored.id
      stored = entry
      stored.id = id
    }
  }

  /// Gives entry `id` a new common name.
  @discardableResult
  public func rename(id: String, to commonName: String) async throws -> DexEntry {
    try await update(id: id) { $0.commonName = commonName }
  }

  /// Replaces the user's notes on entry `id`.
  @discardableResult
  public func setNotes(_ notes: String, for id: String) async throws -> DexEntry {
    try await update(id: id) { $0.notes = notes }
  }

  /// The newest `limit` entries, the grid's first screen.
  public func newest(limit: Int = DexQuery.defaultLimit) async throws -> [DexEntry] {
    try await page(DexQuery(limit: limit), after: nil).entries
  }

  /// Every entry matching `query`, newest first, read page by page.
  public func allEntries(matching query: DexQuery = DexQuery()) async throws -> [DexEntry] {
    var result: [DexEntry] = []
    var cursor: DexCursor?
    repeat {
      try Task.checkCancellation()
      let page = try await page(query, after: cursor)
      result.append(contentsOf: page.entries)
      cursor = page.nextCursor
    } while cursor != nil
    return result
  }
}
