import Foundation
import NIOPosix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a photo's bytes safely: never through a symbolic link, never blocking on a FIFO or a
/// device, only a regular file no larger than the limit, and on NIO's blocking-I/O thread pool
/// so that neither the session's actor nor Swift's cooperative threads wait on the disk.
enum FileReading {
  /// Reads the file at `path` beneath `sandbox`'s folder on `NIOThreadPool.singleton`.
  ///
  /// - Throws: ``PixScanError/notFound(_:)`` for a missing file, a link or anything not a
  ///   regular file; ``PixScanError/outsideFolder(_:)`` when a component of `path` is a link;
  ///   ``PixScanError/photoTooLarge(path:byteCount:maximumByteCount:)``.
  static func read(
    _ sandbox: FolderSandbox, path: String, maximumByteCount: Int, maximumPathByteCount: Int = 4096
  ) async throws(PixScanError) -> Data {
    try await offPool { () throws(PixScanError) in
      try readNow(
        sandbox, path: path, maximumByteCount: maximumByteCount,
        maximumPathByteCount: maximumPathByteCount)
    }
  }

  /// Runs `work` (a blocking file-system walk) on NIO's blocking-I/O thread pool.
  static func offPool<T: Sendable>(
    _ work: @escaping @Sendable () throws(PixScanError) -> T
  ) async throws(PixScanError) -> T {
    let result: Result<T, PixScanError>
    do {
      result = try await NIOThreadPool.singleton.runIfActive {
        Result { () throws(PixScanError) in try work() }
      }
    } catch {
      throw .folderUnreadable(path: "", message: "the I/O thread pool is not running")
    }
    return try result.get()
  }

  /// Reads the file at `path` beneath `sandbox`'s folder (opened without following a link at
  /// any component: ``FolderSandbox/openBeneath(_:flags:maximumByteCount:)``) on the calling
  /// thread (see ``read(_:path:maximumByteCount:maximumPathByteCount:)``). With `prefixOnly`, a larger
  /// file is not an error: its first `maximumByteCount` bytes are read.
  static func readNow(
    _ sandbox: FolderSandbox, path: String, maximumByteCount: Int, maximumPathByteCount: Int = 4096,
    prefixOnly: Bool = false
  ) throws(PixScanError) -> Data {
    let descriptor = try sandbox.openBeneath(
      path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, maximumByteCount: maximumPathByteCount)
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw .notFound(path)
    }
    guard prefixOnly || info.st_size <= maximumByteCount else {
      throw .photoTooLarge(
        path: path, byteCount: Int64(info.st_size), maximumByteCount: maximumByteCount)
    }
    // Read until the end, never past the limit (the file may grow while it is read).
    var data = Data(count: min(Int(info.st_size), maximumByteCount))
    var filled = 0
    while true {
      if filled == data.count {
        guard data.count < maximumByteCount else { break }
        data.count = min(maximumByteCount, max(data.count * 2, 4096))
      }
      let count = data.withUnsafeMutableBytes { buffer in
        systemRead(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw .notFound(path)
      }
      if count == 0 { break }
      filled += count
    }
    data.count = filled
    return data
  }
}

/// read(2), named apart from ``FileReading/read(_:path:maximumByteCount:maximumPathByteCount:)``.
private func systemRead(
  _ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int
) -> Int {
  read(descriptor, buffer, count)
}
