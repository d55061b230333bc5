import Foundation

/// Reads the classifier's resource files (the weights manifest and file, the int8 ranges, label
/// and hierarchy tables) with a size bound checked *before* anything is allocated for them.
///
/// A host may point ``ClassifierModel`` at files of its own. A file that is far larger than
/// any such table (a wrong path, a log, a disk image) is refused with a typed error instead of
/// being read whole into memory, and one that is not a regular file (a FIFO, a device such as
/// `/dev/zero`) is refused as such, opened without waiting for a FIFO's writer.
enum ClassifierFile {
  /// The largest weights manifest or int8 ranges file (the bundled ones are 19 KB and 197 KB).
  static let maximumJSONByteCount = 1 << 20
  /// The largest label or hierarchy table (the bundled ones are 54 KB and 17 KB).
  static let maximumTableByteCount = 8 << 20

  /// The largest weights file, mapped rather than read (Lite0's float16 weights are 9 MB).
  static let maximumWeightsByteCount = 1 << 30

  /// The bytes of the regular file at `url`, at most `maximumByteCount` of them.
  ///
  /// - Throws: ``ClassifierError/unreadableFile(path:reason:)`` when it is missing, unreadable
  ///   or not a regular file; ``ClassifierError/invalidManifest(_:)`` when it is larger.
  static func contents(
    of url: URL, maximumByteCount: Int
  ) throws(ClassifierError) -> Data {
    let handle = try openRegularFile(url, maximumByteCount: maximumByteCount)
    defer { try? handle.close() }
    let data: Data
    do {
      // One byte over the bound shows a file that grew since it was measured.
      data = try handle.read(upToCount: maximumByteCount + 1) ?? Data()
    } catch {
      throw .unreadableFile(path: url.lastPathComponent, reason: "\(error.localizedDescription)")
    }
    guard data.count <= maximumByteCount else {
      throw .invalidManifest(
        "\(url.lastPathComponent) is too large (more than \(maximumByteCount) bytes)")
    }
    return data
  }

  /// The regular file at `url` mapped into memory when the system can (read otherwise), after
  /// the same checks as ``contents(of:maximumByteCount:)``.
  static func mappedContents(
    of url: URL, maximumByteCount: Int
  ) throws(ClassifierError) -> Data {
    let checked = try openRegularFile(url, maximumByteCount: maximumByteCount)
    try? checked.close()
    do {
      return try Data(contentsOf: url, options: .mappedIfSafe)
    } catch {
      throw .unreadableFile(path: url.lastPathComponent, reason: "\(error.localizedDescription)")
    }
  }

  /// Opens `url` without waiting (a FIFO does not wait for a writer) and checks that it is a
  /// regular file of at most `maximumByteCount` bytes before anything is read from it.
  private static func openRegularFile(
    _ url: URL, maximumByteCount: Int
  ) throws(ClassifierError) -> FileHandle {
    let name = url.lastPathComponent
    let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .unreadableFile(path: name, reason: String(cString: strerror(errno)))
    }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
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
    return handle
  }
}
