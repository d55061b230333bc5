import DexModel
import Foundation
import Testing

@testable import DexStorage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Photos are personal data: everything the store and an export create is private to its owner,
/// whatever the umask.
@Suite("DexStore file modes")
struct DexStoreFileModeTests {
  static func mode(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
  }

  @Test func storeFilesAre0600InFolders0700AndSoIsAnExport() async throws {
    try await withTemporaryDirectory { dir in
      let storeURL = dir.appendingPathComponent("Nested/Private.store")
      let store = try openStore(storeURL)
      let entry = try await store.insert(
        makeEntry("Private"), image: randomImage(3_000), thumbnail: randomImage(300))
      let archive = dir.appendingPathComponent("backup.dexarchive")
      try await store.exportArchive(to: archive)

      let root = store.files.root
      var folders = [
        root, root + "/tmp", root + "/images", dir.appendingPathComponent("Nested").path,
      ]
      folders += store.files.contents(of: root + "/images").map { root + "/images/" + $0 }
      #expect(folders.count == 4 + 256)
      for folder in folders {
        #expect(Self.mode(folder) == 0o700, "\(folder)")
      }
      var privateFiles = [
        store.files.databasePath, store.files.lockPath, archive.path,
        store.files.absolute(StoreFiles.relativePath(id: entry.id, kind: .image)),
        store.files.absolute(StoreFiles.relativePath(id: entry.id, kind: .thumbnail)),
      ]
      for suffix in ["-wal", "-shm"] where store.files.fileExists(store.files.databasePath + suffix)
      {
        privateFiles.append(store.files.databasePath + suffix)
      }
      #expect(privateFiles.count >= 6)
      for file in privateFiles {
        #expect(Self.mode(file) == 0o600, "\(file)")
      }
      // And what an import spills into tmp/ is private too (checked through the reader).
      let spill = store.files.tmpPath + "/probe-spill"
      let handle = try store.files.createPrivateFile(spill)
      try handle.close()
      #expect(Self.mode(spill) == 0o600)
      try store.files.remove(spill)
      try store.close()
    }
  }

  @Test func aDurableRenameSyncsTheDestinationFolder() async throws {
    try await withTemporaryDirectory { dir in
      let files = StoreFiles(root: dir)
      let source = dir.path + "/a"
      try files.writeDurably(Data("x".utf8), to: source)
      try files.renameDurably(source, to: dir.path + "/b")
      #expect(files.fileExists(dir.path + "/b") && !files.fileExists(source))
      #expect(StoreFiles.parentDirectory(of: dir.path + "/b") == dir.path)
      #expect(StoreFiles.parentDirectory(of: "b") == ".")
      #expect(StoreFiles.parentDirectory(of: "/b") == "/")
      #expect(StoreFiles.parentDirectory(of: "/a/b/") == "/a")
      // A folder that cannot be opened surfaces as a typed error, not silence.
      #expect(throws: DexStoreError.self) {
        try files.renameDurably(dir.path + "/b", to: dir.path + "/missing/c")
      }
    }
  }
}
