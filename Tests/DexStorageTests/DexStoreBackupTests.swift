import DexModel
import Foundation
import Testing

@testable import DexStorage

@Suite("DexStore backup")
struct DexStoreBackupTests {
  @Test func exportImportRoundTripsAndIsIdempotent() async throws {
    try await withTemporaryDirectory { dir in
      let source = try openStore(dir.appendingPathComponent("A.store"))
      var originals: [String: (Data, Data?)] = [:]
      for index in 0..<12 {
        let image = randomImage(2_000 + index)
        let thumbnail = index.isMultiple(of: 3) ? randomImage(100) : nil
        let entry = try await source.insert(
          makeEntry(
            "Entry \(index)", category: DexCategory.allCases[index % 12],
            facts: ["fact \(index)"],
            discovered: Date(timeIntervalSinceReferenceDate: 1_000.123_456 * Double(index)),
            notes: "note \(index)"),
          image: image, thumbnail: thumbnail)
        originals[entry.id] = (image, thumbnail)
      }
      let archive = dir.appendingPathComponent("backup.dexarchive")
      let manifest = try await source.exportArchive(to: archive)
      #expect(manifest.items.count == 12)
      #expect(manifest.schemaVersion == DexArchiveManifest.currentSchemaVersion)
      #expect(!filesUnder(dir).contains { $0.contains(".partial-") })

      let target = try openStore(dir.appendingPathComponent("B.store"))
      let existing = try await target.insert(makeEntry("Already here"), image: randomImage())
      let first = try await target.importArchive(from: archive)
      #expect(first == DexImportReport(inserted: 12, skipped: 0))
      let second = try await target.importArchive(from: archive)
      #expect(second == DexImportReport(inserted: 0, skipped: 12))
      #expect(try await target.count() == 13)
      #expect(try await target.entry(id: existing.id) == existing)
      #expect(try await target.allEntries().filter { $0.id != existing.id } == source.allEntries())
      for (id, (image, thumbnail)) in originals {
        #expect(try await target.imageData(for: id) == image)
        #expect(try await target.thumbnailData(for: id) == thumbnail)
      }
      #expect(try await target.verifyIntegrity().isHealthy)
    }
  }

  @Test func rejectsBrokenArchivesWithTypedErrors() async throws {
    try await withTemporaryDirectory { dir in
      let source = try openStore(dir.appendingPathComponent("A.store"))
      for index in 0..<3 {
        try await source.insert(makeEntry("Entry \(index)"), image: randomImage(1_500))
      }
      let archive = dir.appendingPathComponent("backup.tar")
      try await source.exportArchive(to: archive)
      let bytes = try Data(contentsOf: archive)
      let target = try openStore(dir.appendingPathComponent("B.store"))

      func importing(_ data: Data) async -> DexStoreError? {
        let url = dir.appendingPathComponent("variant-\(UUID().uuidString).tar")
        do {
          try data.write(to: url)
          _ = try await target.importArchive(from: url)
          return nil
        } catch {
          return error as? DexStoreError
        }
      }
      // Truncated in the middle of an image.
      let truncated = await importing(bytes.prefix(bytes.count - 2_000))
      #expect(truncated == .invalidArchive("it is truncated"))
      // Not a tar file at all.
      #expect(
        await importing(Data(repeating: 7, count: 4_096))
          == .invalidArchive("it is not a ustar archive"))
      #expect(await importing(Data()) == .invalidArchive("it is truncated"))
      // A flipped byte inside an image member.
      var flipped = bytes
      flipped[flipped.count - 1_024 - 600] ^= 0xFF
      guard case .invalidArchive(let reason) = await importing(flipped) else {
        Issue.record("a damaged image must be rejected")
        return
      }
      #expect(reason.contains("does not match its hash"))
      // A header checksum broken.
      var header = bytes
      header[10] ^= 0x01
      #expect(await importing(header) == .invalidArchive("a header checksum does not match"))
      // A manifest from the future.
      let future = try rewriteManifest(bytes) {
        $0.replacingOccurrences(of: "\"schemaVersion\":1", with: "\"schemaVersion\":99")
      }
      #expect(await importing(future) == .unsupportedArchiveVersion(99))
      // Nothing half-imported from the damaged variants survives as a broken entry.
      #expect(try await target.verifyIntegrity().isHealthy)
      // The intact archive still imports fully afterwards.
      let report = try await target.importArchive(from: archive)
      #expect(report.inserted + report.skipped == 3)
      #expect(try await target.count() == 3)
    }
  }

  /// Rebuilds an archive with its manifest text transformed (headers and padding recomputed).
  private func rewriteManifest(_ archive: Data, _ transform: (String) -> String) throws -> Data {
    let sizeField = archive[124..<136].prefix { $0 != 0 && $0 != 32 }
    let size = Int(String(decoding: sizeField, as: UTF8.self), radix: 8) ?? 0
    let manifest = transform(String(decoding: archive[512..<(512 + size)], as: UTF8.self))
    let rest = archive[(512 + (size + 511) / 512 * 512)...]
    let data = Data(manifest.utf8)
    var result = Data(
      try TarArchive.header(name: "manifest.json", size: data.count, modified: Date()))
    result.append(data)
    result.append(TarArchive.padding(for: data.count))
    result.append(rest)
    return result
  }
}
