import Foundation

/// Reads the classifier's small resource files (the weights manifest, the int8 ranges, label and
/// hierarchy tables) with a size bound checked *before* anything is allocated for them.
///
/// A host may point ``ClassifierModel`` at files of its own. A file that is far larger than
/// any such table (a wrong path, a log, a disk image) or that is not a regular file (a FIFO,
/// a device such as `/dev/zero`, which never ends) is refused with a typed error instead of
/// being read whole into memory or waited on.
enum ClassifierFile {
  /// The largest weights manifest or int8 ranges file (the bundled ones are 19 KB and 197 KB).
  static let maximumJSONByteCount = 1 << 20
  /// The largest label or hierarchy table (the bundled ones are 54 KB and 17 KB).
  static let maximumTableByteCount = 8 << 20

  /// The bytes of the regular file at `url`, at most `maximumByteCount` of them.
  ///
  /// - Throws: ``ClassifierError/unreadableFile(path:reason:)`` when it is missing, unreadable
  ///   or not a regular file; ``ClassifierError/invalidManifest(_:)`` when it is larger.
  static func contents(
    of url: URL, maximumByteCount: Int
  ) throws(ClassifierError) -> Data {
    let name = url.lastPathComponent
    // Non-blocking, so that opening a FIFO does not wait for a writer (it changes nothing for
    // a regular file's reads); the descriptor is checked before anything is read from it.
    let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .unreadableFile(path: name, reason: String(cString: strerror(errno)))
    }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    defer { try? handle.close() }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .unreadableFile(path: name, reason: String(cString: strerror(errno)))
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw .unreadableFile(path: name, reason: "not a regular file")
    }
    guard status.st_size <= maximumByteCount else {
      throw .invalidManifest(
        "\(name) is too large (\(status.st_size) bytes, at most \(maximumByteCount))")
    }
    let data: Data
    do {
      // One byte over the bound shows a file that grew since it was measured.
      data = try handle.read(upToCount: maximumByteCount + 1) ?? Data()
    } catch {
      throw .unreadableFile(path: name, reason: "\(error.localizedDescription)")
    }
    guard data.count <= maximumByteCount else {
      throw .invalidManifest("\(name) is too large (more than \(maximumByteCount) bytes)")
    }
    return data
  }
}
