import Foundation
import Testing

@testable import PixScanCore

@Suite("FolderSandbox: every path stays inside the folder")
struct FolderSandboxTests {
  @Test func resolvesAPhotoInsideTheFolder() throws {
    let folder = try TemporaryFolder()
    try folder.write(Data([1, 2, 3]), to: "a/b.jpg")
    let sandbox = try FolderSandbox(folder: folder.path)
    let resolved = try sandbox.resolve("a/b.jpg")
    #expect(resolved.hasSuffix("/a/b.jpg"))
    #expect(resolved.hasPrefix(sandbox.root))
  }

  @Test(arguments: [
    "/etc/passwd", "../outside.jpg", "a/../../outside.jpg", "./a.jpg", "a//b.jpg", "",
    ".pixscan/pixscan.sqlite", "a\0b.jpg", "a\\..\\b.jpg",
  ])
  func refusesMalformedPaths(_ path: String) throws {
    let folder = try TemporaryFolder()
    let sandbox = try FolderSandbox(folder: folder.path)
    #expect(throws: PixScanError.invalidPath(path)) { try sandbox.resolve(path) }
  }

  @Test func refusesAPathLongerThanTheLimit() throws {
    let folder = try TemporaryFolder()
    let sandbox = try FolderSandbox(folder: folder.path)
    let long = String(repeating: "a", count: 5000)
    #expect(throws: PixScanError.invalidPath(long)) { try sandbox.resolve(long) }
  }

  @Test func refusesASymbolicLinkToAFileOutside() throws {
    let outside = try TemporaryFolder()
    let target = try outside.write(Data([1]), to: "secret.jpg")
    let folder = try TemporaryFolder()
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("link.jpg"), withDestinationPath: target)
    let sandbox = try FolderSandbox(folder: folder.path)
    #expect(throws: PixScanError.outsideFolder("link.jpg")) { try sandbox.resolve("link.jpg") }
  }

  @Test func refusesASymbolicLinkedFolderOutside() throws {
    let outside = try TemporaryFolder()
    try outside.write(Data([1]), to: "secret.jpg")
    let folder = try TemporaryFolder()
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("elsewhere"), withDestinationPath: outside.path)
    let sandbox = try FolderSandbox(folder: folder.path)
    #expect(throws: PixScanError.outsideFolder("elsewhere/secret.jpg")) {
      try sandbox.resolve("elsewhere/secret.jpg")
    }
  }

  @Test func refusesAMissingFileAndAFolder() throws {
    let folder = try TemporaryFolder()
    try FileManager.default.createDirectory(
      atPath: folder.file("sub"), withIntermediateDirectories: true)
    let sandbox = try FolderSandbox(folder: folder.path)
    #expect(throws: PixScanError.notFound("missing.jpg")) { try sandbox.resolve("missing.jpg") }
    #expect(throws: PixScanError.notFound("sub")) { try sandbox.resolve("sub") }
  }

  @Test func refusesAFolderThatIsNotThere() throws {
    #expect(throws: PixScanError.self) {
      try FolderSandbox(folder: "/nonexistent-pixscan-\(UUID().uuidString)")
    }
  }
}
