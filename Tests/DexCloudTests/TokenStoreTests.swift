import DexTestSupport
import Foundation
import Testing

@testable import DexCloud

@Suite("Token stores")
struct TokenStoreTests {
  static func credential(_ id: String = "dx1.k1.YQ.1.tag") -> SessionCredential {
    SessionCredential(
      sessionID: id, secret: SigningSecret("file-secret-value")!,
      expiresAt: Date(timeIntervalSince1970: 1_763_780_000))
  }

  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("dexcloud-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  static func mode(_ url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue)
  }

  @Test("In-memory store round-trips and clears")
  func inMemory() async throws {
    let store = InMemoryTokenStore()
    #expect(try await store.loadCredential() == nil)
    try await store.saveCredential(Self.credential())
    #expect(try await store.loadCredential() == Self.credential())
    try await store.removeCredential()
    #expect(try await store.loadCredential() == nil)
  }

  @Test("File store writes 0600 in a 0700 directory, replaces atomically, and removes")
  func fileStore() async throws {
    let root = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let file = root.appendingPathComponent("nested/session.json")
    let store = FileTokenStore(fileURL: file)
    #expect(try await store.loadCredential() == nil)
    try await store.saveCredential(Self.credential())
    #expect(try Self.mode(file) == 0o600)
    #expect(try Self.mode(file.deletingLastPathComponent()) == 0o700)
    #expect(try await store.loadCredential() == Self.credential())
    try await store.saveCredential(Self.credential("dx1.k1.Yg.2.tag"))
    #expect(try await store.loadCredential()?.sessionID == "dx1.k1.Yg.2.tag")
    #expect(try Self.mode(file) == 0o600)
    let leftovers = try FileManager.default.contentsOfDirectory(
      atPath: file.deletingLastPathComponent().path)
    #expect(leftovers == ["session.json"])
    try await store.removeCredential()
    #expect(try await store.loadCredential() == nil)
  }

  @Test("A world-readable token file is treated as compromised and discarded")
  func insecureFile() async throws {
    let root = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let file = root.appendingPathComponent("session.json")
    let capture = LogCapture()
    let store = FileTokenStore(fileURL: file, logger: capture.logger())
    try await store.saveCredential(Self.credential())
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    #expect(try await store.loadCredential() == nil)
    #expect(!FileManager.default.fileExists(atPath: file.path))
    #expect(capture.lines.contains { $0.contains("permissions") })
    #expect(!capture.lines.joined().contains("file-secret-value"))
  }

  @Test("Corrupt and oversized token files do not crash")
  func corruptFile() async throws {
    let root = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let file = root.appendingPathComponent("session.json")
    let store = FileTokenStore(fileURL: file)
    #expect(
      FileManager.default.createFile(
        atPath: file.path, contents: Data("{not json".utf8), attributes: [.posixPermissions: 0o600])
    )
    #expect(try await store.loadCredential() == nil)
    #expect(
      FileManager.default.createFile(
        atPath: file.path, contents: Data(count: 70_000), attributes: [.posixPermissions: 0o600]))
    await #expect(throws: DexCloudError.self) { try await store.loadCredential() }
  }
}
