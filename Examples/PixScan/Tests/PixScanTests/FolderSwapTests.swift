import DexKitTesting
import Foundation
import Testing

@testable import PixScanCore

#if canImport(Glibc)
  import Glibc
#endif

/// Someone who can write in the triaged folder (a shared or synced one) swaps a sub-folder for
/// a link between PixScan's check of a photo and its use: nothing is followed.
@Suite("PixScan follows no swapped folder")
struct FolderSwapTests {
  /// `sub/` is swapped for a link to another folder holding a file of the same name while the
  /// queue is being emptied, after the photo's checks and before its move (the hook runs in
  /// that window, where `emptyQueue` awaits its SQLite write): the other folder's file stays
  /// where it is and the photo is reported, not moved.
  @Test func aFolderSwappedBeforeTheMoveIsNotFollowed() async throws {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.write(try SamplePhoto.cat.data, to: "sub/p.jpg")
    let victim = try outside.write(try SamplePhoto.dog.data, to: "sub/p.jpg")
    let session = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    try await session.decide(path: "sub/p.jpg", action: .queue)
    let (folderPath, outsidePath) = (folder.path, outside.path)
    await session.setBeforeMove { _ in
      try? FileManager.default.moveItem(
        atPath: folderPath + "/sub", toPath: folderPath + "/sub-old")
      try? FileManager.default.createSymbolicLink(
        atPath: folderPath + "/sub", withDestinationPath: outsidePath + "/sub")
    }
    let report = try await session.emptyQueue()
    #expect(FolderSandbox.isSymbolicLink(folder.file("sub")), "the hook did not swap the folder")
    #expect(report.moved.isEmpty)
    #expect(report.failures.map(\.code) == ["outside_folder"])
    #expect(FileManager.default.contents(atPath: victim) == (try SamplePhoto.dog.data))
    #expect(!data.exists("Trash/files/p.jpg"))
    #expect(folder.exists("sub-old/p.jpg"))
  }

  /// The same swap made before a thumbnail is read: the link is refused at its component.
  @Test func aFolderSwappedBeforeAReadIsNotFollowed() async throws {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.write(try SamplePhoto.cat.data, to: "sub/p.jpg")
    try outside.write(try SamplePhoto.dog.data, to: "sub/p.jpg")
    let session = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    try FileManager.default.moveItem(atPath: folder.file("sub"), toPath: folder.file("sub-old"))
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("sub"), withDestinationPath: outside.file("sub"))
    await #expect(throws: PixScanError.self) {
      _ = try await session.thumbnail(path: "sub/p.jpg", size: .small)
    }
  }

  /// The component-by-component walk (used where the kernel has no `openat2`) refuses a link
  /// at any component and opens a plain path.
  @Test func theFallbackWalkRefusesALinkAtAnyComponent() throws {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    try folder.write(Data("inside".utf8), to: "a/b/c.txt")
    try outside.write(Data("outside".utf8), to: "b/c.txt")
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("link"), withDestinationPath: outside.path)
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("a/file-link"), withDestinationPath: folder.file("a/b/c.txt"))
    let root = open(folder.path, O_RDONLY | O_DIRECTORY)
    #expect(root >= 0)
    defer { close(root) }
    let openers: [(Int32, String, Int32) -> Int32] = [
      { FolderSandbox.walkBeneath($0, $1, flags: $2) },
      { FolderSandbox.openBeneath($0, $1, flags: $2) },
    ]
    for opener in openers {
      let plain = opener(root, "a/b/c.txt", O_RDONLY)
      #expect(plain >= 0)
      if plain >= 0 { close(plain) }
      for path in ["link/b/c.txt", "a/file-link", "a/../link/b/c.txt", "../x"] {
        let descriptor = opener(root, path, O_RDONLY)
        #expect(descriptor < 0, "\(path) was opened")
        if descriptor >= 0 { close(descriptor) }
      }
    }
  }

  /// A `.pixscan` state folder that is a link is refused: the database is not written where it
  /// points.
  @Test func aStateFolderThatIsALinkIsRefused() async throws {
    let folder = try TemporaryFolder()
    let elsewhere = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try FileManager.default.createSymbolicLink(
      atPath: folder.file(".pixscan"), withDestinationPath: elsewhere.path)
    await #expect(throws: PixScanError.self) {
      _ = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    }
    #expect(!elsewhere.exists("pixscan.sqlite"))
  }

  /// A folder whose `.pixscan` is a real folder holding a `pixscan.sqlite` (or its WAL) that is
  /// a link, to another folder's database or dangling, is refused: the link's target is neither
  /// opened nor created.
  @Test(arguments: ["pixscan.sqlite", "pixscan.sqlite-wal"])
  func aDatabaseFileThatIsALinkIsRefused(name: String) async throws {
    let folder = try TemporaryFolder()
    let elsewhere = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try FileManager.default.createDirectory(
      atPath: folder.file(".pixscan"), withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(
      atPath: folder.file(".pixscan/" + name), withDestinationPath: elsewhere.file(name))
    await #expect(throws: PixScanError.self) {
      _ = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    }
    #expect(!elsewhere.exists(name))
    #expect(!elsewhere.exists("pixscan.sqlite"))
  }
}
