import DexModel
import Foundation
internal import GRDB

extension DexStore {
  /// The points of an export the tests act at (a delete between them).
  enum ExportStage: Sendable { case snapshotTaken, filesPinned }

  /// For the tests: called at each ``ExportStage`` of an export in this task.
  @TaskLocal static var exportStageReached: (@Sendable (ExportStage) async -> Void)?

  /// For the tests: exports in this task act as on a file system without hard links.
  @TaskLocal static var hardLinksUnavailable = false

  /// The largest `manifest.json` an import reads: about 200 000 entries (decoding one takes
  /// about four times its size).
  static let maximumManifestBytes = 128 << 20

  /// Writes the whole collection to one portable archive at `url` and returns its manifest.
  ///
  /// The archive is written to a temporary file beside `url` (readable by its owner only), fsynced
  /// and renamed into place, and the folder is synced, so an interrupted export never leaves a
  /// truncated archive under the final name. Entries are taken from one consistent snapshot, and
  /// their files are pinned at once (a second name in the store's `tmp/` folder, removed at the
  /// end): an entry deleted while the export runs is still written whole, and one deleted before
  /// its files were pinned is left out. Where the file system has no hard links the files are
  /// read in place, and a delete during the export fails it. Every file is checked against its
  /// hash as it is written, so an entry replaced while the export runs fails it
  /// (``DexStoreError/imageCorrupted(id:)``) rather than making an archive that would not import.
  /// Images are streamed one at a time.
  @discardableResult
  public func exportArchive(to url: URL) async throws -> DexArchiveManifest {
    let snapshot = try await read { db -> [(DexEntry, String, String?, String?)] in
      try EntryRecord.fetchAll(db, sql: "SELECT * FROM entry ORDER BY discovered DESC, id DESC")
        .map { ($0.entry, $0.imageSHA256, $0.thumbnailPath, $0.thumbnailSHA256) }
    }
    await Self.exportStageReached?(.snapshotTaken)
    let files = files
    let pinPrefix = files.tmpPath + "/export-\(UUID().uuidString)-"
    var pins: [String] = []
    defer { for pin in pins { try? files.remove(pin) } }
    var manifest = DexArchiveManifest(
      format: DexArchiveManifest.formatName, schemaVersion: DexArchiveManifest.currentSchemaVersion,
      exportedAt: Date(), items: [])
    var sources: [[ExportSource]] = []
    var linking = !Self.hardLinksUnavailable
    for (entry, imageHash, thumbnailPath, thumbnailHash) in snapshot {
      try Task.checkCancellation()
      let kinds: [StoreFiles.Kind] = thumbnailPath == nil ? [.image] : [.image, .thumbnail]
      var outcome = PinOutcome.unsupported
      if linking {
        let first = pins.count
        let pin = {
          try await Self.offload { try Self.pin(entry.id, kinds, files, pinPrefix, first) }
        }
        outcome = try await pin()
        if outcome == .missing {
          // A delete or an insert of this entry may be half done: once the writer is free, its
          // row says which (gone: left out; there: pinned now, or its file is missing).
          guard try await isStoredOnceWritesSettle(id: entry.id) else { continue }
          outcome = try await pin()
          if outcome == .missing { throw DexStoreError.imageMissing(id: entry.id) }
        }
      }
      switch outcome {
      case .pinned(let paths):
        pins += paths
        sources.append(paths.map(ExportSource.pinned))
      case .unsupported, .missing:
        linking = false
        sources.append(kinds.map { ExportSource.store(id: entry.id, kind: $0) })
      }
      manifest.items.append(
        DexArchiveManifest.Item(
          entry: entry, image: "images/\(entry.id).image", imageSHA256: imageHash,
          thumbnail: thumbnailPath == nil ? nil : "images/\(entry.id).thumbnail",
          thumbnailSHA256: thumbnailHash))
    }
    let manifestData = try JSONEncoder().encode(manifest)
    await Self.exportStageReached?(.filesPinned)

    let destination = url.standardizedFileURL.path
    let partial = destination + ".partial-\(UUID().uuidString)"
    let maximum = configuration.maximumImageBytes
    // Private (0600) like the store itself: the archive holds every photo of the collection.
    let handle = try files.createPrivateFile(partial)
    do {
      defer { try? handle.close() }
      let modified = manifest.exportedAt
      // Every read and write runs on the store's file queue, never on the calling task's thread.
      func add(_ name: String, from source: ExportSource, id: String, hash: String?) async throws {
        try await Self.offload {
          let data: Data?
          switch source {
          case .pinned(let path): data = try files.read(path, maximumBytes: maximum)
          case .store(let id, let kind):
            data =
              try files.read(
                files.absolute(StoreFiles.relativePath(id: id, kind: kind)), maximumBytes: maximum)
              ?? files.read(files.stagedPath(id: id, kind: kind), maximumBytes: maximum)
          }
          guard let data else { throw DexStoreError.imageMissing(id: id) }
          if let hash, data.sha256Hex != hash { throw DexStoreError.imageCorrupted(id: id) }
          try handle.write(
            contentsOf: Data(TarArchive.header(name: name, size: data.count, modified: modified)))
          try handle.write(contentsOf: data)
          try handle.write(contentsOf: TarArchive.padding(for: data.count))
        }
      }
      try await Self.offload {
        try handle.write(
          contentsOf: Data(
            TarArchive.header(name: "manifest.json", size: manifestData.count, modified: modified)))
        try handle.write(contentsOf: manifestData)
        try handle.write(contentsOf: TarArchive.padding(for: manifestData.count))
      }
      for (item, source) in zip(manifest.items, sources) {
        try Task.checkCancellation()
        try await add(item.image, from: source[0], id: item.entry.id, hash: item.imageSHA256)
        if let name = item.thumbnail, source.count > 1 {
          try await add(name, from: source[1], id: item.entry.id, hash: item.thumbnailSHA256)
        }
      }
      try await Self.offload {
        try handle.write(contentsOf: Data(count: TarArchive.blockSize * 2))
        try handle.synchronize()
        try files.renameDurably(partial, to: destination)
      }
    } catch {
      try? files.remove(partial)
      if let error = error as? DexStoreError { throw error }
      if error is CancellationError { throw error }
      throw StoreFiles.error(StoreFiles.systemCode(of: error), "write the archive", destination)
    }
    return manifest
  }

  /// Where an export reads one of an entry's files.
  private enum ExportSource: Sendable {
    /// A hard link the export made when it started.
    case pinned(String)
    /// The store's own paths (the file system has no hard links).
    case store(id: String, kind: StoreFiles.Kind)
  }

  /// What pinning an entry's files did.
  private enum PinOutcome: Sendable, Equatable {
    case pinned([String])
    /// A file is at neither of its paths.
    case missing
    /// The file system has no hard links.
    case unsupported
  }

  /// Links entry `id`'s files (published in `images/`, or still staged in `tmp/` just after an
  /// insert) to `prefix` + a number from `first`; on any failure none is left behind.
  private static func pin(
    _ id: String, _ kinds: [StoreFiles.Kind], _ files: StoreFiles, _ prefix: String, _ first: Int
  ) throws -> PinOutcome {
    var made: [String] = []
    do {
      for (offset, kind) in kinds.enumerated() {
        let pin = prefix + "\(first + offset)"
        var result = try files.link(
          files.absolute(StoreFiles.relativePath(id: id, kind: kind)), to: pin)
        if result == .missing {
          result = try files.link(files.stagedPath(id: id, kind: kind), to: pin)
        }
        switch result {
        case .linked: made.append(pin)
        case .missing, .unsupported:
          for path in made { try? files.remove(path) }
          return result == .missing ? .missing : .unsupported
        }
      }
    } catch {
      for path in made { try? files.remove(path) }
      throw error
    }
    return .pinned(made)
  }

  /// Whether entry `id` is stored, asked on the writer connection: after any insert or delete
  /// in flight has finished (its files moved and its row committed or gone).
  func isStoredOnceWritesSettle(id: String) async throws -> Bool {
    try await writeWithoutTransaction { db in
      try Row.fetchOne(db, sql: "SELECT 1 FROM entry WHERE id = ?", arguments: [id]) != nil
    }
  }

  /// Imports an archive written by ``exportArchive(to:)``, merging by id.
  ///
  /// Entries whose id is already stored are skipped, so importing the same archive twice changes
  /// nothing the second time. Every image is checked against the manifest's hash before it is
  /// stored; photos are stored even if the same bytes already exist under another id (the
  /// duplicate policy applies to new saves, not to restores). Entries are committed in batches,
  /// so a failure part-way keeps what was imported and a retry completes the rest.
  ///
  /// Members may come in any order (the manifest, an entry's image and its thumbnail anywhere):
  /// each is streamed into the store's `tmp/` folder, hashed on the way, and read back only when
  /// its entry is complete, so memory stays bounded by the largest member (and a batch of at most
  /// 8 MiB), not by the archive. The manifest is read and decoded once.
  ///
  /// - Throws: ``DexStoreError/invalidArchive(_:)``, ``DexStoreError/unsupportedArchiveVersion(_:)``
  ///   or any insert error.
  @discardableResult
  public func importArchive(from url: URL) async throws -> DexImportReport {
    try checkOpen()
    let reader = try TarReader(url: url)
    defer { reader.close() }
    let files = files
    let maximumImageBytes = configuration.maximumImageBytes
    let spillPrefix = files.tmpPath + "/import-\(UUID().uuidString)-"
    // Members copied to tmp/ and not yet inserted, by member name; removed however this ends.
    var spilled: [String: (path: String, hash: String)] = [:]
    defer { for member in spilled.values { try? files.remove(member.path) } }
    var seen = Set<String>()
    var manifest: DexArchiveManifest?
    var itemsByMember: [String: (index: Int, isThumbnail: Bool)] = [:]
    var batch: [DexInsertion] = []
    var batchBytes = 0
    var batchMembers: [String] = []
    var report = DexImportReport()
    var completed = 0

    func flush() async throws {
      if batch.isEmpty { return }
      let known = try await read { [batch] db in
        try Set(
          String.fetchAll(
            db,
            sql:
              "SELECT id FROM entry WHERE id IN (\(batch.map { _ in "?" }.joined(separator: ",")))",
            arguments: StatementArguments(batch.map(\.entry.id))))
      }
      let fresh = batch.filter { !known.contains($0.entry.id) }
      report.skipped += batch.count - fresh.count
      // An entry that names nothing (a crafted archive, or one from a version that saved any
      // name) is left out and counted, not saved and not a reason to stop.
      let named = fresh.filter(\.entry.identifiesSomething).map { insertion in
        var bounded = insertion
        bounded.entry = insertion.entry.bounded()
        return bounded
      }
      report.refused += fresh.count - named.count
      // Another import may have stored some of them since the check above: skipped too.
      let stored = try await insert(contentsOf: named, policy: .keepBoth, skippingKnownIDs: true)
      report.inserted += stored.count
      report.skipped += named.count - stored.count
      batch.removeAll()
      batchBytes = 0
      for name in batchMembers {
        if let member = spilled.removeValue(forKey: name) { try? files.remove(member.path) }
      }
      batchMembers.removeAll()
    }

    /// Checks a spilled member against the manifest.
    func verify(_ name: String, hash: String, in manifest: DexArchiveManifest) throws {
      guard let (index, isThumbnail) = itemsByMember[name] else {
        throw DexStoreError.invalidArchive("the member \(name) is not in the manifest")
      }
      let item = manifest.items[index]
      guard hash == (isThumbnail ? item.thumbnailSHA256 : item.imageSHA256) else {
        throw DexStoreError.invalidArchive("the member \(name) does not match its hash")
      }
    }

    /// Adds item `index` to the batch once its image (and thumbnail, if it has one) are spilled.
    func stageIfComplete(_ index: Int, of manifest: DexArchiveManifest) async throws {
      let item = manifest.items[index]
      guard let image = spilled[item.image] else { return }
      let thumbnail = item.thumbnail.flatMap { spilled[$0] }
      if item.thumbnail != nil && thumbnail == nil { return }
      let data = try await Self.offload { () throws -> (Data, Data?) in
        func load(_ path: String) throws -> Data {
          guard let data = try files.read(path, maximumBytes: maximumImageBytes) else {
            throw StoreFiles.error(ENOENT, "read", path)
          }
          return data
        }
        return (try load(image.path), try thumbnail.map { try load($0.path) })
      }
      batch.append(DexInsertion(entry: item.entry, image: data.0, thumbnail: data.1))
      batchBytes += data.0.count + (data.1?.count ?? 0)
      batchMembers.append(item.image)
      if let name = item.thumbnail { batchMembers.append(name) }
      completed += 1
      if batch.count >= Self.importBatchCount || batchBytes >= Self.importBatchBytes {
        try await flush()
      }
    }

    let largestMember = max(Self.maximumManifestBytes, maximumImageBytes)
    while let member = try await Self.offload({ try reader.nextMember(maximumBytes: largestMember) }
    ) {
      try Task.checkCancellation()
      guard seen.insert(member.name).inserted else {
        throw DexStoreError.invalidArchive("the member \(member.name) appears twice")
      }
      if member.name == "manifest.json" {
        let decoded = try await Self.offload { try Self.decodeManifest(try reader.read(member)) }
        manifest = decoded
        for (index, item) in decoded.items.enumerated() {
          itemsByMember[item.image] = (index, false)
          if let thumbnail = item.thumbnail { itemsByMember[thumbnail] = (index, true) }
        }
        // Members that came before the manifest are checked now.
        for (name, member) in spilled { try verify(name, hash: member.hash, in: decoded) }
        for index in decoded.items.indices { try await stageIfComplete(index, of: decoded) }
        continue
      }
      guard member.size <= maximumImageBytes else {
        throw DexStoreError.invalidArchive(
          "the member \(member.name) has \(member.size) bytes, more than the \(maximumImageBytes) allowed"
        )
      }
      if manifest != nil, itemsByMember[member.name] == nil {
        throw DexStoreError.invalidArchive("the member \(member.name) is not in the manifest")
      }
      let path = spillPrefix + "\(seen.count)"
      spilled[member.name] = (path, "")
      let hash = try await Self.offload { try reader.spill(member, to: path, files: files) }
      spilled[member.name] = (path, hash)
      if let manifest, let (index, _) = itemsByMember[member.name] {
        try verify(member.name, hash: hash, in: manifest)
        try await stageIfComplete(index, of: manifest)
      }
    }
    guard let manifest else {
      throw DexStoreError.invalidArchive("it has no manifest.json")
    }
    try await flush()
    if completed != manifest.items.count {
      let missing = manifest.items.count - completed
      throw DexStoreError.invalidArchive(
        missing == 1
          ? "1 entry has no image in the archive"
          : "\(missing) entries have no image in the archive")
    }
    return report
  }

  /// An import commits its entries in batches of at most this many...
  static let importBatchCount = 32
  /// ...or this many bytes of images, whichever comes first.
  static let importBatchBytes = 8 << 20

  /// Blocking file work of archive export and import, on a queue of the store's own: a thread
  /// outside Swift's cooperative pool, which has one thread per core, and outside the caller's
  /// executor.
  private static let fileQueue = DispatchQueue(
    label: "DexStore.files", qos: .userInitiated, attributes: .concurrent)

  /// Runs `body` on ``fileQueue`` and returns its result.
  private static func offload<T: Sendable>(
    _ body: @escaping @Sendable () throws -> T
  ) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      fileQueue.async { continuation.resume(with: Result { try body() }) }
    }
  }

  private static func decodeManifest(_ data: Data) throws -> DexArchiveManifest {
    var manifest: DexArchiveManifest
    do {
      manifest = try JSONDecoder().decode(CheckedManifest.self, from: data).manifest
    } catch let refusal as ManifestRefusal {
      switch refusal {
      case .notACollection:
        throw DexStoreError.invalidArchive("manifest.json is not a DexKit collection manifest")
      case .unsupportedVersion(let version):
        throw DexStoreError.unsupportedArchiveVersion(version)
      }
    } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
      throw DexStoreError.invalidArchive("manifest.json is not a DexKit collection manifest")
    } catch {
      throw DexStoreError.invalidArchive("manifest.json cannot be read (\(error))")
    }
    var ids = Set<String>()
    // Each member holds one file of one entry, so that every file is checked against the hash
    // its own item records: a member named twice (two entries', or one entry's photo and
    // thumbnail) would be checked against one of the hashes only.
    var members = Set<String>()
    for index in manifest.items.indices {
      let item = manifest.items[index]
      guard let id = canonicalID(item.entry.id), ids.insert(id).inserted else {
        throw DexStoreError.invalidArchive("the manifest has an invalid or repeated id")
      }
      for member in [item.image, item.thumbnail].compactMap({ $0 }) {
        guard members.insert(member).inserted else {
          throw DexStoreError.invalidArchive("the manifest names member \(member) twice")
        }
      }
      manifest.items[index].entry.id = id
    }
    return manifest
  }

  /// Why a manifest was refused before its items were read.
  private enum ManifestRefusal: Error {
    case notACollection
    case unsupportedVersion(Int)
  }

  /// A manifest decoded in one pass: the format and version are checked first, so an unrelated
  /// or newer file is refused clearly, and only then are the items decoded.
  private struct CheckedManifest: Decodable {
    var manifest: DexArchiveManifest

    private enum Keys: String, CodingKey {
      case format, schemaVersion, exportedAt, items
    }

    init(from decoder: any Decoder) throws {
      guard let container = try? decoder.container(keyedBy: Keys.self),
        let format = try? container.decode(String.self, forKey: .format),
        format == DexArchiveManifest.formatName,
        let version = try? container.decode(Int.self, forKey: .schemaVersion)
      else { throw ManifestRefusal.notACollection }
      guard version >= 1, version <= DexArchiveManifest.currentSchemaVersion else {
        throw ManifestRefusal.unsupportedVersion(version)
      }
      manifest = DexArchiveManifest(
        format: format, schemaVersion: version,
        exportedAt: try container.decode(Date.self, forKey: .exportedAt),
        items: try container.decode([DexArchiveManifest.Item].self, forKey: .items))
    }
  }
}
