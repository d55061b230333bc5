import Foundation
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ``TokenStore`` backed by one JSON file readable only by its owner (mode 0600).
///
/// Writes go to a temporary 0600 file in the same directory that then replaces the target, so a
/// crash never leaves a half-written credential and the secret is never on disk with wider
/// permissions. A file found with group or other permission bits is treated as compromised:
/// it is deleted and the client fetches a fresh session.
public struct FileTokenStore: TokenStore {
  /// The credential file.
  public let fileURL: URL
  private let logger: Logger

  static let maximumFileBytes = 64 << 10

  /// Creates a store at `fileURL`; its directory is created (0700) on first save if missing.
  public init(fileURL: URL, logger: Logger = Logger(label: "dexkit.cloud.tokens")) {
    self.fileURL = fileURL
    self.logger = logger
  }

  /// Why the file could not be used.
  static func storeError(_ message: String) -> DexCloudError {
    DexCloudError(kind: .tokenStore, message: message)
  }

  /// See ``TokenStore/loadCredential()``.
  public func loadCredential() async throws -> SessionCredential? {
    let manager = FileManager.default
    guard manager.fileExists(atPath: fileURL.path) else { return nil }
    let attributes = try manager.attributesOfItem(atPath: fileURL.path)
    if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
      logger.warning(
        "Token file had group/other permissions; discarding it",
        metadata: ["path": "\(fileURL.path)", "mode": "\(String(mode, radix: 8))"])
      try? manager.removeItem(at: fileURL)
      return nil
    }
    if let size = (attributes[.size] as? NSNumber)?.intValue, size > Self.maximumFileBytes {
      throw Self.storeError("The token file is larger than \(Self.maximumFileBytes) bytes.")
    }
    let data = try Data(contentsOf: fileURL)
    do {
      return try JSONDecoder.tokenFile.decode(SessionCredential.self, from: data)
    } catch {
      logger.warning("Token file is unreadable; ignoring it", metadata: ["path": "\(fileURL.path)"])
      return nil
    }
  }

  /// See ``TokenStore/saveCredential(_:)``.
  public func saveCredential(_ credential: SessionCredential) async throws {
    let manager = FileManager.default
    let directory = fileURL.deletingLastPathComponent()
    if !manager.fileExists(atPath: directory.path) {
      try manager.createDirectory(
        at: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    let data = try JSONEncoder.tokenFile.encode(credential)
    let temporary = directory.appendingPathComponent(
      ".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
    guard
      manager.createFile(
        atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
    else { throw Self.storeError("Cannot create a temporary file beside the token file.") }
    do {
      try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
      let handle = try FileHandle(forWritingTo: temporary)
      defer { try? handle.close() }
      try handle.write(contentsOf: data)
      try handle.synchronize()
      // rename(2) replaces the target atomically, on every POSIX platform.
      guard rename(temporary.path, fileURL.path) == 0 else {
        throw Self.storeError("Cannot replace the token file.")
      }
      try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fileURL.path)
      // The rename is durable once the folder is synced.
      let folder = open(directory.path, O_RDONLY | O_CLOEXEC)
      if folder >= 0 {
        _ = fsync(folder)
        _ = close(folder)
      }
    } catch {
      try? manager.removeItem(at: temporary)
      throw Self.storeError("Cannot write the token file.")
    }
  }

  /// See ``TokenStore/removeCredential()``.
  public func removeCredential() async throws {
    let manager = FileManager.default
    guard manager.fileExists(atPath: fileURL.path) else { return }
    try manager.removeItem(at: fileURL)
  }
}

extension JSONEncoder {
  fileprivate static var tokenFile: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }
}

extension JSONDecoder {
  fileprivate static var tokenFile: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return decoder
  }
}
