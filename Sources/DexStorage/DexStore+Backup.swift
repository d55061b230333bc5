import DexModel
import Foundation
internal import GRDB

extension DexStore {
  /// The largest `manifest.json` an import reads (about a million entries).
  static let maximumManifestBytes = 1 << 30

  /// Writes the whole collection to one portable archive at `url` and returns its manifest.
  ///
  /// The archive is written to a temporary file beside `url`, fsynced and renamed into place,
  /// so an interrupted export never leaves a truncated archive under the final name. Entries are
  /// taken from one consistent snapshot; images are streamed one at a time.
  @discardableResult
  public func exportArchive(to url: URL) async throws -> DexArchiveManifest {
    let snapshot = try await read { db -> [(DexEntry, String, String?, String?)] in
      try EntryRecord.fetchAll(db, sql: "SELECT * FROM entry ORDER BY discovered DESC, id DESC")
        .map { ($0.entry, $0.imageSHA256, $0.thumbnailPath, $0.thumbnailSHA256) }
    }
    var manifest = DexArchiveManifest(
      format: DexArchiveManifest.formatName, schemaVersion: DexArchiveManifest.currentSchemaVersion,
      exportedAt: Date(), items: [])
    for (entry, imageHash, thumbnailPath, thumbnailHash) in snapshot {
      manifest.items.append(
        DexArchiveManifest.Item(
          entry: entry, image: "images/\(entry.id).image", imageSHA256: imageHash,
          thumbnail: thumbnailPath == nil ? nil : "images/\(entry.id).thumbnail",
          thumbnailSHA256: thumbnailHash))
    }
    let manifestData = try JSONEncoder().encode(manifest)

    let destination = url.standardizedFileURL.path
    let partial = destination + ".partial-\(UUID().uuidString)"
    guard FileManager.default.createFile(atPath: partial, contents: nil) else {
      throw StoreFiles.error(errno, "create the archive", partial)
    }
    do {
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
      defer { try? handle.close() }
      let modified = manifest.exportedAt
      // Every write runs on the store's file queue, never on the calling task's thread.
      func add(_ name: String, _ data: Data) async throws {
        try await Self.offload {
          try handle.write(
            contentsOf: Data(TarArchive.header(name: name, size: data.count, modified: modified)))
          try handle.write(contentsOf: data)
          try handle.write(contentsOf: TarArchive.padding(for: data.count))
        }
      }
      try await add("manifest.json", manifestData)
      for item in manifest.items {
        try Task.checkCancellation()
        try await add(item.image, try await imageData(for: item.entry.id))
        if let name = item.thumbnail {
          guard let data = try await thumbnailData(for: item.entry.id) else {
            throw DexStoreError.imageMissing(id: item.entry.id)
          }
          try await add(name, data)
        }
      }
      let files = files
      try await Self.offload {
        try handle.write(contentsOf: Data(count: TarArchive.blockSize * 2))
        try handle.synchronize()
        try files.rename(partial, to: destination)
      }
    } catch {
      try? files.remove(partial)
      if let error = error as? DexStoreError { throw error }
      if error is CancellationError { throw error }
      let code =
        (error as NSError).domain == NSPOSIXErrorDomain ? Int32((error as NSError).code) : EIO
      throw StoreFiles.error(code, "write the archive", destination)
    }
    return manifest
  }

  /// Imports an archive written by ``exportArchive(to:)``, merging by id.
  ///
  /// Entries whose id is already stored are skipped, so importing the same archive twice changes
  /// nothing the second time. Every image is checked against the manifest's hash before it is
  /// stored; photos are stored even if the same bytes already exist under another id (the
  /// duplicate policy applies to new saves, not to restores). Entries are committed in batches,
  /// so a failure part-way keeps what was imported and a retry completes the rest.
  ///
  /// - Throws: ``DexStoreError/invalidArchive(_:)``, ``DexStoreError/unsupportedArchiveVersion(_:)``
  ///   or any insert error.
  @discardableResult
  public func importArchive(from url: URL) async throws -> DexImportReport {
    try checkOpen()
    let reader = try TarReader(url: url)
    defer { reader.close() }
    // Reads (and the hashing of what they read) run on the store's file queue.
    func nextMember(maximumBytes: Int) async throws -> (name: String, data: Data, hash: String)? {
      try await Self.offload {
        try reader.next(maximumBytes: maximumBytes).map {
          ($0.name, $0.data, $0.data.sha256Hex)
        }
      }
    }
    guard let first = try await nextMember(maximumBytes: Self.maximumManifestBytes),
      first.name == "manifest.json"
    else {
      throw DexStoreError.invalidArchive("it does not start with manifest.json")
    }
    let manifest = try Self.decodeManifest(first.data)

    var itemsByMember: [String: (index: Int, isThumbnail: Bool)] = [:]
    for (index, item) in manifest.items.enumerated() {
      itemsByMember[item.image] = (index, false)
      if let thumbnail = item.thumbnail { itemsByMember[thumbnail] = (index, true) }
    }
    var images: [Int: Data] = [:]
    var thumbnails: [Int: Data] = [:]
    var batch: [DexInsertion] = []
    var report = DexImportReport()
    var completed = Set<Int>()

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
      _ = try await insert(contentsOf: fresh, policy: .keepBoth)
      report.inserted += fresh.count
      batch.removeAll()
    }

    while let member = try await nextMember(maximumBytes: configuration.maximumImageBytes) {
      try Task.checkCancellation()
      guard let (index, isThumbnail) = itemsByMember[member.name] else {
        throw DexStoreError.invalidArchive("the member \(member.name) is not in the manifest")
      }
      let item = manifest.items[index]
      let expected = isThumbnail ? item.thumbnailSHA256 : item.imageSHA256
      guard member.hash == expected else {
        throw DexStoreError.invalidArchive("the member \(member.name) does not match its hash")
      }
      if isThumbnail { thumbnails[index] = member.data } else { images[index] = member.data }
      guard let image = images[index], item.thumbnail == nil || thumbnails[index] != nil else {
        continue
      }
      batch.append(DexInsertion(entry: item.entry, image: image, thumbnail: thumbnails[index]))
      images[index] = nil
      thumbnails[index] = nil
      completed.insert(index)
      if batch.count >= 32 { try await flush() }
    }
    try await flush()
    if completed.count != manifest.items.count {
      throw DexStoreError.invalidArchive(
        "\(manifest.items.count - completed.count) entries have no image in the archive")
    }
    return report
  }

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
    struct Header: Decodable {
      var format: String
      var schemaVersion: Int
    }
    guard let header = try? JSONDecoder().decode(Header.self, from: data),
      header.format == DexArchiveManifest.formatName
    else {
      throw DexStoreError.invalidArchive("manifest.json is not a DexKit collection manifest")
    }
    guard header.schemaVersion <= DexArchiveManifest.currentSchemaVersion, header.schemaVersion >= 1
    else {
      throw DexStoreError.unsupportedArchiveVersion(header.schemaVersion)
    }
    var manifest: DexArchiveManifest
    do {
      manifest = try JSONDecoder().decode(DexArchiveManifest.self, from: data)
    } catch {
      throw DexStoreError.invalidArchive("manifest.json cannot be read (\(error))")
    }
    var ids = Set<String>()
    for index in manifest.items.indices {
      guard let id = canonicalID(manifest.items[index].entry.id), ids.insert(id).inserted else {
        throw DexStoreError.invalidArchive("the manifest has an invalid or repeated id")
      }
      manifest.items[index].entry.id = id
    }
    return manifest
  }
}
