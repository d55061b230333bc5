import Foundation

#if canImport(Glibc)
  import Glibc
  private let systemRead = Glibc.read
#elseif canImport(Darwin)
  import Darwin
  private let systemRead = Darwin.read
#endif

/// A file named on the command line (a photo to scan, a config file), read within a bound.
///
/// `Data(contentsOf:)` reads whatever the path names to its end: `/dev/zero` until memory runs
/// out, a FIFO never (it waits for a writer), a 20 GB file whole before anything can refuse it.
/// This opens without waiting (`O_NONBLOCK`), accepts only a regular file no larger than the
/// bound, and reads at most one byte past the bound (a file that grows meanwhile is refused).
public enum LocalFile {
  /// Why a file was not read; its description names the path and the reason.
  public struct Refusal: Error, CustomStringConvertible, Sendable {
    /// The message, naming the path.
    public let description: String
  }

  /// The bytes of the regular file at `path`, at most `maximumByteCount` of them.
  ///
  /// - Throws: ``Refusal`` when the file cannot be opened or read, is not a regular file, or is
  ///   larger than `maximumByteCount`.
  public static func read(_ path: String, maximumByteCount: Int) throws(Refusal) -> Data {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw Refusal(description: "Cannot read \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      throw Refusal(description: "Cannot read \(path): \(String(cString: strerror(errno)))")
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw Refusal(description: "Cannot read \(path): not a regular file")
    }
    let limit = max(0, maximumByteCount)
    guard info.st_size <= limit else {
      throw Refusal(
        description: "Cannot read \(path): \(info.st_size) bytes, over the \(limit)-byte limit")
    }
    var data = Data(count: Int(info.st_size) + 1)
    var total = 0
    while true {
      if total == data.count {
        // Grown since it was measured: one more byte than the bound is enough to know.
        guard data.count <= limit else { break }
        data.count = min(limit + 1, data.count * 2)
      }
      let count = data.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return systemRead(descriptor, base + total, buffer.count - total)
      }
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else {
        throw Refusal(description: "Cannot read \(path): \(String(cString: strerror(errno)))")
      }
      if count == 0 { break }
      total += count
    }
    guard total <= limit else {
      throw Refusal(description: "Cannot read \(path): over the \(limit)-byte limit")
    }
    return data.prefix(total)
  }
}
