import Foundation
internal import GRDB

extension DexStore {
  /// Resolves every file an interrupted insert or delete left in `tmp/`.
  ///
  /// Only called while this store holds the exclusive open lock, so no write is in flight
  /// anywhere. For each journal file the committed database decides: if the entry's row exists,
  /// its published file is missing and the journal file's bytes are the ones the row records
  /// (its SHA-256), the file is moved back into place (an insert committed before the crash, or
  /// a delete that did not); otherwise it is deleted. The hash decides between two candidates
  /// for one entry (a deleted entry's parked photo and a later re-insert's staged one), whatever
  /// order the folder lists them in.
  func recoverInterruptedWrites() throws {
    let files = files
    let maximum = configuration.maximumImageBytes
    let names = files.contents(of: files.tmpPath)
    if names.isEmpty { return }
    var restored = 0
    var removed = 0
    // Removed if it can be, left with a warning if not (a folder someone made there, say), so
    // that no leftover ever keeps the store from opening.
    func discard(_ path: String) {
      do {
        try files.remove(path)
        removed += 1
      } catch {
        logger.warning(
          "Left a file in the store's tmp folder that could not be removed",
          metadata: ["reason": "\(error)"])
      }
    }
    try pool.writeWithoutTransaction { db in
      for name in names {
        let path = files.tmpPath + "/" + name
        guard let (id, kind) = StoreFiles.parseJournalName(name) else {
          discard(path)
          continue
        }
        let columns = kind == .image ? "imagePath, imageSHA256" : "thumbnailPath, thumbnailSHA256"
        let row = try Row.fetchOne(
          db, sql: "SELECT \(columns) FROM entry WHERE id = ?", arguments: [id])
        let relative: String? = try row.flatMap { try $0.decode(atIndex: 0) }
        let hash: String? = try row.flatMap { try $0.decode(atIndex: 1) }
        if let relative, StoreFiles.isStoredPath(relative, id: id, kind: kind),
          files.isRegularFile(path), !files.fileExists(files.absolute(relative)),
          hash == nil || (try? files.read(path, maximumBytes: maximum))??.sha256Hex == hash
        {
          try files.renameDurably(path, to: files.absolute(relative))
          restored += 1
        } else {
          discard(path)
        }
      }
    }
    try files.syncDirectory(files.tmpPath)
    logger.notice(
      "Recovered the Dex store after an interrupted write",
      metadata: ["restored": "\(restored)", "removed": "\(removed)"])
  }

  /// Checks the whole store: SQLite's `integrity_check`, then every entry's files (present, and
  /// matching their hashes when `verifyingHashes`), then files no entry references.
  ///
  /// This reads every image, so it is a maintenance task, not something to run at launch.
  public func verifyIntegrity(verifyingHashes: Bool = true) async throws -> DexIntegrityReport {
    let files = files
    let maximum = configuration.maximumImageBytes
    return try await read { db in
      var report = DexIntegrityReport()
      report.databaseMessages = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        .filter { $0 != "ok" }
      var referenced = Set<String>()
      let rows = try Row.fetchCursor(
        db, sql: "SELECT id, imagePath, imageSHA256, thumbnailPath, thumbnailSHA256 FROM entry")
      while let row = try rows.next() {
        report.entryCount += 1
        let id: String = try row.decode(atIndex: 0)
        let pairs: [(StoreFiles.Kind, String?, String?)] = [
          (.image, try row.decode(atIndex: 1), try row.decode(atIndex: 2)),
          (.thumbnail, try row.decode(atIndex: 3), try row.decode(atIndex: 4)),
        ]
        for case (let kind, let relative?, let hash) in pairs {
          referenced.insert(relative)
          guard StoreFiles.isStoredPath(relative, id: id, kind: kind),
            let data = try? files.read(files.absolute(relative), maximumBytes: maximum)
          else {
            report.missingImageIDs.append(id)
            continue
          }
          if verifyingHashes, let hash, data.sha256Hex != hash {
            report.corruptImageIDs.append(id)
          }
        }
      }
      for shard in files.contents(of: files.imagesPath) {
        for name in files.contents(of: files.imagesPath + "/" + shard)
        where !referenced.contains("images/\(shard)/\(name)") {
          report.unreferencedFiles.append("images/\(shard)/\(name)")
        }
      }
      report.unreferencedFiles += files.contents(of: files.tmpPath).map { "tmp/" + $0 }
      return report
    }
  }

  /// Deletes files in `images/` that no entry references (left by hand edits or restores; the
  /// store's own crash recovery never needs this). Returns how many were removed.
  ///
  /// Each file is checked again on the writer connection, just before it is removed: removed
  /// only if no row names it then. An insert, in this process or another, moves its files into
  /// `images/` only after its row is committed, so none of its files is taken for an orphan.
  @discardableResult
  public func removeUnreferencedFiles() async throws -> Int {
    let report = try await verifyIntegrity(verifyingHashes: false)
    let files = files
    return try await writeWithoutTransaction { db in
      var removed = 0
      for relative in report.unreferencedFiles where relative.hasPrefix("images/") {
        let stillReferenced =
          try Bool.fetchOne(
            db, sql: "SELECT 1 FROM entry WHERE imagePath = ? OR thumbnailPath = ?",
            arguments: [relative, relative]) ?? false
        if !stillReferenced {
          try files.remove(files.absolute(relative))
          removed += 1
        }
      }
      return removed
    }
  }
}
