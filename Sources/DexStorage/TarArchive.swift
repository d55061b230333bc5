import Crypto
import Foundation

/// A minimal POSIX ustar writer and reader for DexKit backup archives.
///
/// Tar keeps the archive one portable file that standard tools can list and unpack
/// (`tar -tf backup.dexarchive`), without a compression dependency (photos are already
/// compressed). Only regular files with names under 100 bytes are written or accepted.
enum TarArchive {
  static let blockSize = 512

  /// The 512-byte ustar header for a regular file.
  static func header(name: String, size: Int, modified: Date) throws -> [UInt8] {
    let nameBytes = Array(name.utf8)
    guard !nameBytes.isEmpty, nameBytes.count < 100 else {
      throw DexStoreError.invalidArchive("the member name \(name) is too long")
    }
    var block = [UInt8](repeating: 0, count: blockSize)
    func put(_ bytes: [UInt8], at offset: Int) {
      for (index, byte) in bytes.enumerated() { block[offset + index] = byte }
    }
    func octal(_ value: Int, width: Int) -> [UInt8] {
      let digits = String(value, radix: 8)
      return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8)
        + [0]
    }
    put(nameBytes, at: 0)
    put(octal(0o644, width: 8), at: 100)
    put(octal(0, width: 8), at: 108)
    put(octal(0, width: 8), at: 116)
    put(octal(size, width: 12), at: 124)
    put(octal(max(0, Int(modified.timeIntervalSince1970)), width: 12), at: 136)
    put(Array("        ".utf8), at: 148)
    block[156] = UInt8(ascii: "0")
    put(Array("ustar".utf8) + [0], at: 257)
    put(Array("00".utf8), at: 263)
    let checksum = block.reduce(0) { $0 + Int($1) }
    put(octal(checksum, width: 7) + [UInt8(ascii: " ")], at: 148)
    return block
  }

  /// Zero bytes that pad a member of `size` bytes to a block boundary.
  static func padding(for size: Int) -> Data {
    Data(count: (blockSize - size % blockSize) % blockSize)
  }

  /// A parsed member header.
  struct Member {
    var name: String
    var size: Int
  }

  /// Parses a header block; `nil` for the all-zero end-of-archive block.
  static func parseHeader(_ block: Data) throws -> Member? {
    let bytes = [UInt8](block)
    guard bytes.count == blockSize else { throw DexStoreError.invalidArchive("it is truncated") }
    if bytes.allSatisfy({ $0 == 0 }) { return nil }
    guard bytes[257..<262].elementsEqual("ustar".utf8) else {
      throw DexStoreError.invalidArchive("it is not a ustar archive")
    }
    var checksumBytes = bytes
    for index in 148..<156 { checksumBytes[index] = UInt8(ascii: " ") }
    let expected = checksumBytes.reduce(0) { $0 + Int($1) }
    guard let recorded = parseOctal(bytes[148..<156]), recorded == expected else {
      throw DexStoreError.invalidArchive("a header checksum does not match")
    }
    let type = bytes[156]
    guard type == UInt8(ascii: "0") || type == 0 else {
      throw DexStoreError.invalidArchive("it contains something other than regular files")
    }
    guard bytes[345] == 0 else {
      throw DexStoreError.invalidArchive("it uses long member names")
    }
    let nameBytes = bytes[0..<100].prefix { $0 != 0 }
    guard let name = String(bytes: nameBytes, encoding: .utf8), !name.isEmpty,
      let size = parseOctal(bytes[124..<136])
    else {
      throw DexStoreError.invalidArchive("a member header is malformed")
    }
    return Member(name: name, size: size)
  }

  private static func parseOctal(_ field: ArraySlice<UInt8>) -> Int? {
    let digits = field.drop { $0 == UInt8(ascii: " ") }
      .prefix { $0 != 0 && $0 != UInt8(ascii: " ") }
    guard !digits.isEmpty, digits.count <= 11 else { return nil }
    var value = 0
    for digit in digits {
      guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { return nil }
      value = value * 8 + Int(digit - UInt8(ascii: "0"))
    }
    return value
  }
}

/// Reads an archive member by member from a file handle: a member's bytes are either read into
/// memory (bounded by the caller) or streamed to a file in fixed-size chunks.
struct TarReader: Sendable {
  /// The chunk in which ``spill(_:to:files:)`` copies a member (1 MiB).
  static let chunkSize = 1 << 20

  private let handle: FileHandle
  private let path: String

  /// Opens the archive at `url`, which must be a regular file (a symbolic link to one is
  /// followed): a FIFO or a device in its place is refused without waiting on it.
  init(url: URL) throws {
    let path = url.path
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else {
      throw DexStoreError.io(
        operation: "open the archive", path: path, detail: String(cString: strerror(errno)))
    }
    let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      try? handle.close()
      throw DexStoreError.io(
        operation: "open the archive", path: path, detail: "not a regular file")
    }
    self.handle = handle
    self.path = path
  }

  func close() { try? handle.close() }

  /// The next member's header, refusing members larger than `maximumBytes`; `nil` at the end
  /// of the archive. Its bytes must then be consumed with ``read(_:)`` or ``spill(_:to:files:)``.
  func nextMember(maximumBytes: Int) throws -> TarArchive.Member? {
    let headerBlock = try read(count: TarArchive.blockSize)
    guard let member = try TarArchive.parseHeader(headerBlock) else { return nil }
    guard member.size <= maximumBytes else {
      throw DexStoreError.invalidArchive(
        "the member \(member.name) has \(member.size) bytes, more than the \(maximumBytes) allowed")
    }
    return member
  }

  /// The bytes of `member` (whose header was just read), in memory.
  func read(_ member: TarArchive.Member) throws -> Data {
    let data = try read(count: member.size)
    try skipPadding(member)
    return data
  }

  /// Copies the bytes of `member` (whose header was just read) to a new private file at
  /// `destination`, one chunk at a time, and returns their SHA-256 (lowercase hex).
  func spill(
    _ member: TarArchive.Member, to destination: String, files: StoreFiles
  ) throws
    -> String
  {
    let output = try files.createPrivateFile(destination)
    defer { try? output.close() }
    var hasher = SHA256()
    var remaining = member.size
    while remaining > 0 {
      let chunk = try read(count: Swift.min(remaining, Self.chunkSize))
      hasher.update(data: chunk)
      do {
        try output.write(contentsOf: chunk)
      } catch {
        throw StoreFiles.error(StoreFiles.systemCode(of: error), "write", destination)
      }
      remaining -= chunk.count
    }
    try skipPadding(member)
    return hasher.finalize().lowercaseHex
  }

  private func skipPadding(_ member: TarArchive.Member) throws {
    _ = try read(count: TarArchive.padding(for: member.size).count)
  }

  private func read(count: Int) throws -> Data {
    if count == 0 { return Data() }
    let data: Data
    do {
      data = try handle.read(upToCount: count) ?? Data()
    } catch {
      throw DexStoreError.io(
        operation: "read the archive", path: path, detail: error.localizedDescription)
    }
    guard data.count == count else { throw DexStoreError.invalidArchive("it is truncated") }
    return data
  }
}
