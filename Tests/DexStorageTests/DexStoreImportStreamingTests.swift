import DexModel
import Foundation
import Testing

@testable import DexStorage

/// Archives whose members come in an order other than the export's: the import streams each
/// member to the store's `tmp/` folder instead of holding images in memory.
@Suite("DexStore import streaming")
struct DexStoreImportStreamingTests {
  /// One archived entry with its bytes.
  struct Member {
    var item: DexArchiveManifest.Item
    var image: Data
    var thumbnail: Data?
  }

  static func members(count: Int, imageBytes: Int, thumbnailBytes: Int) -> [Member] {
    (0..<count).map { index in
      var entry = makeEntry("Streamed \(index)")
      entry.id = UUID().uuidString
      let image = randomImage(imageBytes)
      let thumbnail = randomImage(thumbnailBytes)
      return Member(
        item: DexArchiveManifest.Item(
          entry: entry, image: "images/\(entry.id).image", imageSHA256: image.sha256Hex,
          thumbnail: "images/\(entry.id).thumbnail", thumbnailSHA256: thumbnail.sha256Hex),
        image: image, thumbnail: thumbnail)
    }
  }

  enum Layout {
    /// Manifest, every image, then every thumbnail.
    case thumbnailsLast
    /// Every image, every thumbnail, then the manifest.
    case manifestLast
    /// Thumbnails in reverse, the manifest, then images in reverse.
    case manifestInTheMiddle
  }

  /// Writes a ustar archive of `members` in `layout` order to `url`.
  static func writeArchive(_ members: [Member], layout: Layout, to url: URL) throws {
    let manifest = try manifestData(members.map(\.item))
    let images = members.map { ($0.item.image, $0.image) }
    let thumbnails = members.compactMap { member in
      member.thumbnail.map { (member.item.thumbnail ?? "", $0) }
    }
    switch layout {
    case .thumbnailsLast:
      try writeTar([("manifest.json", manifest)] + images + thumbnails, to: url)
    case .manifestLast:
      try writeTar(images + thumbnails + [("manifest.json", manifest)], to: url)
    case .manifestInTheMiddle:
      try writeTar(
        thumbnails.reversed() + [("manifest.json", manifest)] + images.reversed(), to: url)
    }
  }

  static func manifestData(_ items: [DexArchiveManifest.Item]) throws -> Data {
    try JSONEncoder().encode(
      DexArchiveManifest(
        format: DexArchiveManifest.formatName,
        schemaVersion: DexArchiveManifest.currentSchemaVersion, exportedAt: Date(), items: items))
  }

  /// Writes `members` (name, bytes) as a ustar archive, in this order.
  static func writeTar(_ members: [(String, Data)], to url: URL) throws {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    for (name, data) in members {
      try handle.write(
        contentsOf: TarArchive.header(name: name, size: data.count, modified: Date()))
      try handle.write(contentsOf: data)
      try handle.write(contentsOf: TarArchive.padding(for: data.count))
    }
    try handle.write(contentsOf: Data(count: TarArchive.blockSize * 2))
  }

  @Test(arguments: [Layout.thumbnailsLast, .manifestLast, .manifestInTheMiddle])
  func membersInAnyOrderImportWholly(_ layout: Layout) async throws {
    try await withTemporaryDirectory { dir in
      let members = Self.members(count: 40, imageBytes: 30_000, thumbnailBytes: 3_000)
      let archive = dir.appendingPathComponent("ordered.tar")
      try Self.writeArchive(members, layout: layout, to: archive)
      let store = try openStore(dir.appendingPathComponent("S.store"))
      let report = try await store.importArchive(from: archive)
      #expect(report == DexImportReport(inserted: 40, skipped: 0))
      for member in members {
        #expect(try await store.imageData(for: member.item.entry.id) == member.image)
        #expect(try await store.thumbnailData(for: member.item.entry.id) == member.thumbnail)
      }
      // Nothing spilled is left behind.
      #expect(store.files.contents(of: store.files.tmpPath).isEmpty)
      #expect(try await store.verifyIntegrity().isHealthy)
    }
  }

  /// A FIFO (or anything but a regular file) given as the archive is refused at once instead
  /// of blocking the caller until something writes to it; a symbolic link to an archive is
  /// followed.
  @Test func anArchiveThatIsNotARegularFileIsRefusedWithoutWaiting() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir.appendingPathComponent("S.store"))
      let fifo = dir.appendingPathComponent("backup.tar").path
      try #require(mkfifo(fifo, 0o600) == 0)
      await #expect(
        throws: DexStoreError.io(
          operation: "open the archive", path: fifo, detail: "not a regular file")
      ) {
        _ = try await store.importArchive(from: URL(fileURLWithPath: fifo))
      }
      await #expect(throws: DexStoreError.self) {
        _ = try await store.importArchive(from: dir.appendingPathComponent("S.store"))
      }
      let members = Self.members(count: 1, imageBytes: 1_000, thumbnailBytes: 100)
      let archive = dir.appendingPathComponent("real.tar")
      try Self.writeArchive(members, layout: .thumbnailsLast, to: archive)
      let link = dir.appendingPathComponent("link.tar").path
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: archive.path)
      let report = try await store.importArchive(from: URL(fileURLWithPath: link))
      #expect(report == DexImportReport(inserted: 1, skipped: 0))
    }
  }

  @Test func strayDuplicateOrMissingMembersAreRefusedAndCleanedUp() async throws {
    try await withTemporaryDirectory { dir in
      let members = Self.members(count: 3, imageBytes: 5_000, thumbnailBytes: 500)
      let store = try openStore(dir.appendingPathComponent("S.store"))
      func importing(_ build: (URL) throws -> Void) async throws -> DexStoreError? {
        let url = dir.appendingPathComponent("variant-\(UUID().uuidString).tar")
        try build(url)
        do {
          _ = try await store.importArchive(from: url)
          return nil
        } catch {
          return error as? DexStoreError
        }
      }
      let images = members.map { ($0.item.image, $0.image) }
      let thumbnails = members.map { ($0.item.thumbnail ?? "", $0.thumbnail ?? Data()) }
      // A member that the manifest, which comes last, does not name.
      var renamed = members.map(\.item)
      renamed[1].image = "images/elsewhere.image"
      let strayError = try await importing { url in
        try Self.writeTar(
          images + thumbnails + [("manifest.json", try Self.manifestData(renamed))], to: url)
      }
      #expect(
        strayError
          == .invalidArchive("the member \(members[1].item.image) is not in the manifest"))
      // A damaged image that arrives before the manifest.
      var damaged = images
      damaged[2].1[10] ^= 0xFF
      let damagedError = try await importing { url in
        try Self.writeTar(
          damaged + thumbnails + [("manifest.json", try Self.manifestData(members.map(\.item)))],
          to: url)
      }
      #expect(
        damagedError
          == .invalidArchive("the member \(members[2].item.image) does not match its hash"))
      // The same member twice.
      let twice = try await importing { url in
        try Self.writeTar(
          [("manifest.json", try Self.manifestData(members.map(\.item)))] + images + [images[0]],
          to: url)
      }
      #expect(twice == .invalidArchive("the member \(members[0].item.image) appears twice"))
      // A manifest that names one member for two files (another entry's photo, or an entry's
      // own photo as its thumbnail): each file must be checked against its own hash.
      for shared in [
        { (items: inout [DexArchiveManifest.Item]) in items[1].image = items[0].image },
        { (items: inout [DexArchiveManifest.Item]) in items[1].thumbnail = items[1].image },
      ] {
        var items = members.map(\.item)
        shared(&items)
        let named = try await importing { url in
          try Self.writeTar([("manifest.json", try Self.manifestData(items))] + images, to: url)
        }
        #expect(named == .invalidArchive("the manifest names member \(items[1].image) twice"))
      }
      // No manifest at all.
      let noManifest = try await importing { url in try Self.writeTar(images + thumbnails, to: url)
      }
      #expect(noManifest == .invalidArchive("it has no manifest.json"))
      // A thumbnail the manifest names is missing.
      let missing = try await importing { url in
        try Self.writeTar(
          [("manifest.json", try Self.manifestData(members.map(\.item)))] + images
            + thumbnails.dropLast(), to: url)
      }
      #expect(missing == .invalidArchive("1 entry has no image in the archive"))
      // Every refusal removed what it had spilled; only the complete entries of the last one
      // (all but the one missing its thumbnail) were stored.
      #expect(store.files.contents(of: store.files.tmpPath).isEmpty)
      #expect(try await store.count() == 2)
    }
  }

  /// A child process imports 32 images of 4 MiB whose thumbnails all come last: an import that
  /// held images until their thumbnails arrived would peak at 128 MiB or more above its
  /// starting point; streaming stays within the largest member plus a batch.
  @Test func importPeakMemoryIsBoundedByTheLargestMemberNotTheArchive() async throws {
    try await withTemporaryDirectory { dir in
      let members = Self.members(count: 32, imageBytes: 4 << 20, thumbnailBytes: 64 << 10)
      let archive = dir.appendingPathComponent("thumbnails-last.tar")
      try Self.writeArchive(members, layout: .thumbnailsLast, to: archive)
      let result = try await runProbe([
        "import", dir.appendingPathComponent("S.store").path, archive.path,
      ])
      #expect(result["inserted"] == "32", "\(result)")
      let before = try #require(result["rssBeforeKiB"].flatMap(Int.init))
      let after = try #require(result["rssAfterKiB"].flatMap(Int.init))
      let growthMiB = (after - before) / 1_024
      print("import of a 128 MiB archive, thumbnails last: peak RSS \(before) KiB -> \(after) KiB")
      #expect(growthMiB < 48, "peak RSS grew by \(growthMiB) MiB during the import")
    }
  }
}
