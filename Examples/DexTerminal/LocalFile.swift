import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
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
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    let data: Data
    do {
      // One byte over the bound shows a file that grew since it was measured.
      data = try handle.read(upToCount: limit + 1) ?? Data()
    } catch {
      throw Refusal(description: "Cannot read \(path): \(error.localizedDescription)")
    }
    guard data.count <= limit else {
      throw Refusal(description: "Cannot read \(path): over the \(limit)-byte limit")
    }
    return data
  }
}
