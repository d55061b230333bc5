import DexModel
import Foundation
internal import GRDB
internal import GRDBSQLite

extension DexStore {
  /// An insertion checked (id canonicalized, sizes bounded) before the write lock is taken.
  struct PreparedInsertion: Sendable {
    var entry: DexEntry
    var image: Data
    var thumbnail: Data?
  }

  /// A file to move from `tmp/` into `images/` after the commit.
  private struct Publication: Sendable {
    var staged: String
    var published: String
  }

  /// Saves `insertions` in one transaction; see ``DexStoring/insert(contentsOf:)``.
  ///
  /// - Throws: ``DexStoreError/invalidEntry(_:)``, ``DexStoreError/invalidImage(_:)``,
  ///   ``DexStoreError/duplicateID(_:)``, ``DexStoreError/duplicateImage(existingID:)``,
  ///   ``DexStoreError/diskFull(path:)``, ``DexStoreError/unwritableDirectory(path:detail:)``.
  public func insert(contentsOf insertions: [DexInsertion]) async throws -> [DexEntry] {
    try await insert(contentsOf: insertions, policy: configuration.duplicatePolicy)
  }

  /// `skippingKnownIDs`: an insertion whose id is already stored is left out of the result
  /// instead of failing the batch (an import, checked inside the write so that two imports of
  /// one archive at once both succeed).
  func insert(
    contentsOf insertions: [DexInsertion], policy: DexDuplicatePolicy,
    skippingKnownIDs: Bool = false
  ) async throws
    -> [DexEntry]
  {
    try checkOpen()
    if insertions.isEmpty { return [] }
    let prepared = try prepare(insertions)
    let files = files
    let databasePath = files.databasePath
    return try await writeWithoutTransaction { db in
      var staged: [String] = []
      var publications: [Publication] = []
      var stored: [DexEntry] = []
      do {
        try db.inTransaction(.immediate) {
          for item in prepared {
            try Task.checkCancellation()
            let id = item.entry.id
            let idCheck = try db.cachedStatement(sql: "SELECT 1 FROM entry WHERE id = ?")
            if try Bool.fetchOne(idCheck, arguments: [id]) == true {
              if skippingKnownIDs { continue }
              throw DexStoreError.duplicateID(id)
            }
            // Hash while the image is written and fsynced: the fsync waits on the disk, so
            // the hash comes almost free. A duplicate's staged file is removed again below.
            let stagedImage = files.stagedPath(id: id, kind: .image)
            staged.append(stagedImage)
            let imageHash = try Self.writeDurablyWhileHashing(item.image, to: stagedImage, files)
            if policy != .keepBoth,
              let existing = try EntryRecord.fetchOne(
                db, sql: "SELECT * FROM entry WHERE imageSHA256 = ? LIMIT 1",
                arguments: [imageHash]
              )?.entry
            {
              try files.remove(stagedImage)
              staged.removeLast()
              if policy == .reject { throw DexStoreError.duplicateImage(existingID: existing.id) }
              stored.append(existing)
              continue
            }
            publications.append(
              Publication(
                staged: stagedImage,
                published: files.absolute(StoreFiles.relativePath(id: id, kind: .image))))
            var thumbnailPath: String?
            var thumbnailHash: String?
            if let thumbnail = item.thumbnail {
              let stagedThumbnail = files.stagedPath(id: id, kind: .thumbnail)
              staged.append(stagedThumbnail)
              try files.writeDurably(thumbnail, to: stagedThumbnail)
              thumbnailHash = thumbnail.sha256Hex
              let relative = StoreFiles.relativePath(id: id, kind: .thumbnail)
              publications.append(
                Publication(staged: stagedThumbnail, published: files.absolute(relative)))
              thumbnailPath = relative
            }
            try Self.insertRow(
              db, item, image: (StoreFiles.relativePath(id: id, kind: .image), imageHash),
              thumbnail: (thumbnailPath, thumbnailHash))
            stored.append(item.entry)
          }
          if !staged.isEmpty { try files.syncDirectory(files.tmpPath) }
          return .commit
        }
      } catch {
        for path in staged { try? files.remove(path) }
        throw Self.mapError(
          error, path: databasePath, systemErrno: Self.systemErrno(db), files: files)
      }
      // Committed: the rows are durable and the staged files fsynced. Publishing is a rename;
      // should one fail, readers still find the file in tmp/ and the next recovery finishes it.
      var published = Set<String>()
      for publication in publications {
        do {
          try files.rename(publication.staged, to: publication.published)
          published.insert(StoreFiles.parentDirectory(of: publication.published))
        } catch {
          self.logger.warning(
            "Could not publish a saved image; it stays staged until the next open",
            metadata: ["error": "\(error)"])
        }
      }
      // The new names made durable, one sync per shard (were one lost, the next exclusive open
      // would find the file still staged and publish it again).
      for directory in published.sorted() {
        do {
          try files.syncDirectory(directory)
        } catch {
          self.logger.warning(
            "Could not sync an image directory after publishing",
            metadata: ["error": "\(error)"])
        }
      }
      return stored
    }
  }

  /// Where ``writeDurablyWhileHashing(_:to:_:)`` hashes: a serial queue, so a thread of its own
  /// rather than one of the global pool's, which Swift's cooperative executor shares on Linux.
  /// The writer waits for the hash while it holds SQLite's write lock; were every global thread
  /// busy (or blocked waiting for this writer), the hash would never start.
  private static let hashingQueue = DispatchQueue(label: "DexStore.hash", qos: .userInitiated)

  /// Writes `data` durably to `path` while another thread computes its content hash.
  static func writeDurablyWhileHashing(
    _ data: Data, to path: String, _ files: StoreFiles
  ) throws
    -> String
  {
    let result = HashResult()
    let group = DispatchGroup()
    Self.hashingQueue.async(group: group) {
      result.value = data.sha256Hex
    }
    defer { group.wait() }
    try files.writeDurably(data, to: path)
    group.wait()
    return result.value
  }

  /// Carries a hash out of a dispatched block; the `DispatchGroup` wait orders the accesses.
  private final class HashResult: @unchecked Sendable {
    var value = ""
  }

  /// Validates entries and images and canonicalizes ids.
  private func prepare(_ insertions: [DexInsertion]) throws -> [PreparedInsertion] {
    var seen = Set<String>()
    return try insertions.map { insertion in
      var entry = insertion.entry
      guard let id = Self.canonicalID(entry.id) else {
        throw DexStoreError.invalidEntry("the id \"\(entry.id.prefix(64))\" is not a UUID string")
      }
      entry.id = id
      guard seen.insert(id).inserted else { throw DexStoreError.duplicateID(id) }
      try Self.validate(entry)
      try Self.requireIdentification(entry)
      try checkImage(insertion.image, name: "image")
      if let thumbnail = insertion.thumbnail { try checkImage(thumbnail, name: "thumbnail") }
      return PreparedInsertion(entry: entry, image: insertion.image, thumbnail: insertion.thumbnail)
    }
  }

  private func checkImage(_ data: Data, name: String) throws {
    if data.isEmpty { throw DexStoreError.invalidImage("the \(name) is empty") }
    if data.count > configuration.maximumImageBytes {
      throw DexStoreError.invalidImage(
        "the \(name) has \(data.count) bytes, more than the \(configuration.maximumImageBytes) allowed"
      )
    }
  }

  /// `entry` edited by `body` and checked as an update must be: same id (in its canonical
  /// form), storable values.
  package static func edited(
    _ entry: DexEntry, by body: (inout DexEntry) throws -> Void
  ) throws -> DexEntry {
    var edited = entry
    try body(&edited)
    guard canonicalID(edited.id) == entry.id else {
      throw DexStoreError.invalidEntry("an update cannot change the entry's id")
    }
    edited.id = entry.id
    try validate(edited)
    if edited.commonName != entry.commonName || edited.summary != entry.summary {
      try requireIdentification(edited)
    }
    return edited
  }

  /// Refuses an entry that names nothing (see `DexEntry.identifiesSomething`): new entries and
  /// edits of the name or summary must name something; entries saved before the rule was this
  /// strict stay editable otherwise.
  package static func requireIdentification(_ entry: DexEntry) throws {
    guard entry.identifiesSomething else {
      throw DexStoreError.invalidEntry(
        "the entry names nothing (an empty name, or a placeholder such as \"Unknown\" without a "
          + "summary)")
    }
  }

  /// Rejects values SQLite cannot round-trip (NaN becomes NULL) or that make no sense.
  package static func validate(_ entry: DexEntry) throws {
    guard entry.confidence.isFinite else {
      throw DexStoreError.invalidEntry("the confidence is not a finite number")
    }
    guard (0...1).contains(entry.confidence) else {
      throw DexStoreError.invalidEntry("the confidence is not between 0 and 1")
    }
    guard entry.dateDiscovered.timeIntervalSinceReferenceDate.isFinite else {
      throw DexStoreError.invalidEntry("the discovery date is not a finite date")
    }
  }

  private static func insertRow(
    _ db: Database, _ item: PreparedInsertion, image: (path: String, hash: String),
    thumbnail: (path: String?, hash: String?)
  ) throws {
    try EntryRecord(
      entry: item.entry, imagePath: image.path, imageSize: item.image.count,
      imageSHA256: image.hash, thumbnailPath: thumbnail.path, thumbnailSHA256: thumbnail.hash
    ).insert(db)
  }

  // MARK: Update

  /// Atomically edits entry `id`; see ``DexStoring/update(id:_:)``.
  public func update(
    id rawID: String, _ body: @escaping @Sendable (inout DexEntry) throws -> Void
  ) async throws -> DexEntry {
    guard let id = Self.canonicalID(rawID) else { throw DexStoreError.notFound(id: rawID) }
    let files = files
    let databasePath = files.databasePath
    return try await writeWithoutTransaction { db in
      var result: DexEntry?
      do {
        try db.inTransaction(.immediate) {
          guard
            var record = try EntryRecord.fetchOne(
              db, sql: "SELECT * FROM entry WHERE id = ?", arguments: [id])
          else { throw DexStoreError.notFound(id: id) }
          let entry = try Self.edited(record.entry, by: body)
          record.entry = entry
          try record.update(db)
          result = entry
          return .commit
        }
      } catch {
        throw Self.mapError(
          error, path: databasePath, systemErrno: Self.systemErrno(db), files: files)
      }
      guard let result else { throw DexStoreError.notFound(id: id) }
      return result
    }
  }

  // MARK: Delete

  /// Removes entry `id` and its files; see ``DexStoring/delete(id:)``.
  @discardableResult
  public func delete(id rawID: String) async throws -> Bool {
    guard let id = Self.canonicalID(rawID) else { return false }
    let files = files
    let databasePath = files.databasePath
    return try await writeWithoutTransaction { db in
      var moved: [Publication] = []
      var found = false
      do {
        try db.inTransaction(.immediate) {
          guard
            try Row.fetchOne(db, sql: "SELECT 1 FROM entry WHERE id = ?", arguments: [id]) != nil
          else { return .commit }
          found = true
          // The entry's own files, at the paths the store writes for it, whatever its row says:
          // a path in a damaged or tampered row (`Dex.sqlite`, `images`, another entry's
          // photo) is never touched.
          for kind in StoreFiles.Kind.allCases {
            let published = files.absolute(StoreFiles.relativePath(id: id, kind: kind))
            guard files.fileExists(published) else { continue }
            // A unique name, so that unlinking it after the commit can never hit a file that a
            // later insert of the same id staged.
            let staged = files.trashPath(id: id, kind: kind)
            try files.rename(published, to: staged)
            moved.append(Publication(staged: staged, published: published))
          }
          // The moves are made durable before the row goes: after a power cut the photo is in
          // `tmp/` (removed at the next open, or put back if the row survived), never back in
          // `images/` with no row.
          if let shard = moved.first.map({ ($0.published as NSString).deletingLastPathComponent }) {
            try files.syncDirectory(shard)
            try files.syncDirectory(files.tmpPath)
          }
          try db.execute(sql: "DELETE FROM entry WHERE id = ?", arguments: [id])
          return .commit
        }
      } catch {
        for publication in moved.reversed() {
          try? files.rename(publication.staged, to: publication.published)
        }
        throw Self.mapError(
          error, path: databasePath, systemErrno: Self.systemErrno(db), files: files)
      }
      for publication in moved { try? files.remove(publication.staged) }
      return found
    }
  }

  // MARK: Plumbing

  /// Runs `body` on the writer connection, outside any transaction.
  func writeWithoutTransaction<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T
  ) async throws -> T {
    try checkOpen()
    do {
      return try await pool.writeWithoutTransaction(body)
    } catch {
      throw Self.mapError(error, path: files.databasePath, files: files)
    }
  }

  /// The errno behind SQLite's last I/O error, to tell a full disk from other failures.
  static func systemErrno(_ db: Database) -> Int32 {
    guard let connection = db.sqliteConnection else { return 0 }
    return sqlite3_system_errno(connection)
  }
}
