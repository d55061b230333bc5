import Foundation
import Testing

@testable import PixScanCore

#if canImport(Glibc)
  import Glibc
#endif

@Suite("FreedesktopTrash: moves, never deletes")
struct FreedesktopTrashTests {
  @Test func theHomeTrashFollowsXDGDataHomeThenHome() throws {
    #expect(
      try FreedesktopTrash.home(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"])
        .directory == "/x/data/Trash")
    #expect(
      try FreedesktopTrash.home(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"])
        .directory == "/home/u/.local/share/Trash")
    #expect(
      throws: PixScanError.trashFailed(
        path: "", message: "neither XDG_DATA_HOME nor HOME is an absolute path")
    ) { try FreedesktopTrash.home(environment: [:]) }
  }

  @Test func aMovedFileIsInFilesWithItsTrashInfo() throws {
    let data = try TemporaryFolder()
    let folder = try TemporaryFolder()
    let photo = try folder.write(Data("photo".utf8), to: "my photo%.jpg")
    let trash = try FreedesktopTrash.home(environment: ["XDG_DATA_HOME": data.path])
    let name = try trash.moveToTrash(photo, displayPath: "my photo%.jpg")
    #expect(name == "my photo%.jpg")
    #expect(!FileManager.default.fileExists(atPath: photo))
    #expect(
      FileManager.default.contents(atPath: data.file("Trash/files/my photo%.jpg"))
        == Data("photo".utf8))
    let info = try String(
      contentsOfFile: data.file("Trash/info/my photo%.jpg.trashinfo"), encoding: .utf8)
    let lines = info.split(separator: "\n")
    #expect(lines.first == "[Trash Info]")
    #expect(lines.contains { $0.hasPrefix("Path=/") && $0.hasSuffix("/my%20photo%25.jpg") })
    #expect(
      lines.contains {
        $0.wholeMatch(of: /DeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/) != nil
      })
  }

  /// A photo whose name is too long for its `.trashinfo` to be a file name (over 245 bytes) is
  /// trashed under a shortened name (whole characters, the extension kept); its `.trashinfo`
  /// keeps the original path.
  @Test func aLongNameIsShortenedInTheTrash() throws {
    let data = try TemporaryFolder()
    let folder = try TemporaryFolder()
    let long = String(repeating: "é", count: 123) + "x.jpg"  // 251 bytes
    let photo = try folder.write(Data("photo".utf8), to: long)
    let trash = FreedesktopTrash(directory: data.file("Trash"))
    let name = try trash.moveToTrash(photo, displayPath: long)
    #expect(name.utf8.count <= 245 && name.hasSuffix(".jpg") && name.hasPrefix("éé"))
    #expect(FreedesktopTrash.isTrashName(name))
    #expect(!FileManager.default.fileExists(atPath: photo))
    let info = try String(
      contentsOfFile: data.file("Trash/info/\(name).trashinfo"), encoding: .utf8)
    #expect(info.contains("x.jpg"))
    // A second one of that name gets a number and is still short enough.
    let again = try trash.moveToTrash(
      try folder.write(Data("2".utf8), to: long), displayPath: long)
    #expect(again != name && again.utf8.count <= 245 && again.hasSuffix(".2.jpg"))
  }

  @Test func aNameAlreadyInTheTrashGetsANumber() throws {
    let data = try TemporaryFolder()
    let folder = try TemporaryFolder()
    let trash = FreedesktopTrash(directory: data.file("Trash"))
    let first = try trash.moveToTrash(
      try folder.write(Data("1".utf8), to: "a/cat.jpg"), displayPath: "a/cat.jpg")
    let second = try trash.moveToTrash(
      try folder.write(Data("2".utf8), to: "b/cat.jpg"), displayPath: "b/cat.jpg")
    // A stray file without .trashinfo is kept too.
    try data.write(Data("stray".utf8), to: "Trash/files/cat.3.jpg")
    let third = try trash.moveToTrash(
      try folder.write(Data("3".utf8), to: "c/cat.jpg"), displayPath: "c/cat.jpg")
    #expect([first, second, third] == ["cat.jpg", "cat.2.jpg", "cat.4.jpg"])
    #expect(
      FileManager.default.contents(atPath: data.file("Trash/files/cat.2.jpg")) == Data("2".utf8))
    #expect(
      FileManager.default.contents(atPath: data.file("Trash/files/cat.3.jpg")) == Data("stray".utf8)
    )
    #expect(data.exists("Trash/info/cat.4.jpg.trashinfo"))
    #expect(!data.exists("Trash/info/cat.3.jpg.trashinfo"))
  }

  @Test func anotherFilesystemIsRefusedAndTheFileStays() throws {
    // /dev/shm is a tmpfs on Linux: another filesystem than the temporary directory.
    var shm = stat()
    var tmp = stat()
    guard stat("/dev/shm", &shm) == 0, stat(NSTemporaryDirectory(), &tmp) == 0,
      shm.st_dev != tmp.st_dev, access("/dev/shm", W_OK) == 0
    else {
      Issue.record("this machine has no writable /dev/shm on another filesystem")
      return
    }
    let data = try TemporaryFolder()
    let folder = try TemporaryFolder(base: "/dev/shm")
    let photo = try folder.write(Data("x".utf8), to: "x.jpg")
    let trash = FreedesktopTrash(directory: data.file("Trash"))
    #expect(throws: PixScanError.crossDevice(path: "x.jpg", trash: data.file("Trash"))) {
      try trash.moveToTrash(photo, displayPath: "x.jpg")
    }
    #expect(FileManager.default.fileExists(atPath: photo))
    #expect(try FileManager.default.contentsOfDirectory(atPath: data.file("Trash/info")).isEmpty)
  }

  @Test func aGoneFileIsATrashFailure() throws {
    let data = try TemporaryFolder()
    let trash = FreedesktopTrash(directory: data.file("Trash"))
    #expect(throws: PixScanError.trashFailed(path: "nothing.jpg", message: "the file is gone")) {
      try trash.moveToTrash(data.file("nothing.jpg"), displayPath: "nothing.jpg")
    }
  }

  /// A file that appears in `files/` between the reservation and the rename is never replaced.
  @Test func aFileAppearingInTheTrashIsNeverReplaced() throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    let photo = try folder.write(Data("photo".utf8), to: "cat.jpg")
    let trash = FreedesktopTrash(directory: data.file("Trash"))
    let name = try trash.reserve(photo, displayPath: "cat.jpg")
    #expect(name == "cat.jpg")
    #expect(data.exists("Trash/info/cat.jpg.trashinfo"))
    try Data("someone else's".utf8).write(
      to: URL(fileURLWithPath: trash.filesDirectory + "/cat.jpg"))
    #expect(
      throws: PixScanError.trashFailed(
        path: "cat.jpg", message: "a file named cat.jpg appeared in the trash")
    ) { try trash.move(photo, to: name, displayPath: "cat.jpg") }
    #expect(folder.exists("cat.jpg"))
    let kept = try String(contentsOfFile: trash.filesDirectory + "/cat.jpg", encoding: .utf8)
    #expect(kept == "someone else's")
    #expect(!data.exists("Trash/info/cat.jpg.trashinfo"))
  }
}
