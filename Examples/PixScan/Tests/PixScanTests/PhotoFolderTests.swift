import DexKitTesting
import Foundation
import PixScanCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The listing reads a folder one entry at a time, within its bounds.
@Suite("PhotoFolder: listing within its bounds")
struct PhotoFolderTests {
  /// A folder of 3 000 files that are not photos, with photos among them: with room for 1 000
  /// entries the listing stops there and says it is truncated, though the photo bound is far.
  @Test func aFolderOfManyEntriesIsReadOnlyToTheEntryBound() throws {
    let folder = try TemporaryFolder()
    for index in 0..<3000 {
      let name = String(format: "note-%04d.txt", index)
      #expect(FileManager.default.createFile(atPath: folder.file(name), contents: Data()))
    }
    try folder.addSamplePhotos([.cat, .dog])
    let sandbox = try FolderSandbox(folder: folder.path)

    let bounded = try PhotoFolder(
      sandbox: sandbox, limits: PixScanLimits(maximumPhotoCount: 100, maximumEntryCount: 1000))
    #expect(bounded.isTruncated)

    // With room for every entry, both photos and no truncation.
    let whole = try PhotoFolder(sandbox: sandbox, limits: PixScanLimits(maximumEntryCount: 3002))
    #expect(!whole.isTruncated)
    #expect(whole.photos.map(\.path) == ["cat.jpg", "dog.jpg"])
    // One entry short of them all: truncated again.
    let short = try PhotoFolder(sandbox: sandbox, limits: PixScanLimits(maximumEntryCount: 3001))
    #expect(short.isTruncated)
  }

  /// Entries are counted across sub-folders: the budget is the listing's, not each folder's.
  @Test func theEntryBoundCoversEverySubFolder() throws {
    let folder = try TemporaryFolder()
    for sub in 0..<4 {
      for index in 0..<100 {
        _ = try folder.write(Data(), to: "album-\(sub)/note-\(index).txt")
      }
    }
    let sandbox = try FolderSandbox(folder: folder.path)
    // 4 folder entries + 400 files = 404.
    #expect(
      try PhotoFolder(sandbox: sandbox, limits: PixScanLimits(maximumEntryCount: 404))
        .isTruncated == false)
    #expect(
      try PhotoFolder(sandbox: sandbox, limits: PixScanLimits(maximumEntryCount: 300)).isTruncated)
  }

  /// A name that is not UTF-8 is skipped, not decoded into another file's name: beside it, a
  /// file really named with the replacement character is listed once.
  @Test func aNameThatIsNotUTF8IsSkipped() throws {
    let folder = try TemporaryFolder()
    _ = try folder.write(try SamplePhoto.cat.data, to: "bad\u{FFFD}.jpg")
    var raw = Array(folder.path.utf8) + Array("/bad".utf8) + [0xFF] + Array(".jpg".utf8) + [0]
    let descriptor = raw.withUnsafeMutableBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { name -> Int32 in
        guard let base = name.baseAddress else { return -1 }
        return open(base, O_CREAT | O_WRONLY, 0o600)
      }
    }
    #expect(descriptor >= 0)
    close(descriptor)
    let listing = try PhotoFolder(
      sandbox: try FolderSandbox(folder: folder.path), limits: PixScanLimits())
    #expect(listing.photos.map(\.path) == ["bad\u{FFFD}.jpg"])
  }
}
