import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Lists the photos of a folder: the snapshot a triage session walks through, in path order.
///
/// It exists apart from the session so that the listing rules are in one place: JPEG, PNG,
/// HEIF/HEIC, AVIF and WebP files by extension; hidden files and folders (the `.pixscan` state
/// directory among them) and symbolic links skipped; at most ``PixScanLimits/maximumDepth`` folder
/// levels, ``PixScanLimits/maximumPhotoCount`` photos and ``PixScanLimits/maximumEntryCount``
/// directory entries read.
public struct PhotoFolder: Sendable {
  /// The photos found, sorted by path.
  public var photos: [Photo]
  /// Whether the listing stopped at ``PixScanLimits/maximumPhotoCount`` photos or
  /// ``PixScanLimits/maximumEntryCount`` entries read.
  public var isTruncated: Bool

  /// The file extensions (lower case) that are listed as photos.
  public static let photoExtensions: Set<String> = [
    "jpg", "jpeg", "png", "heic", "heif", "avif", "webp",
  ]

  /// Lists `sandbox`'s folder within `limits`.
  ///
  /// Each folder is opened beneath the folder without following a link and read one entry at a
  /// time, so that at most ``PixScanLimits/maximumEntryCount`` names (of every kind, hidden ones
  /// included) are ever read or held, however many a folder has; the walk stops there, or at the
  /// photo after the ``PixScanLimits/maximumPhotoCount``-th, and the listing is truncated.
  ///
  /// - Throws: ``PixScanError/folderUnreadable(path:message:)`` when the folder itself cannot
  ///   be read (an unreadable sub-folder is skipped).
  public init(sandbox: FolderSandbox, limits: PixScanLimits) throws(PixScanError) {
    var found: [Photo] = []
    var truncated = false
    var entriesLeft = max(0, limits.maximumEntryCount)
    var pending: [(relative: String, depth: Int)] = [("", 0)]
    walk: while let (relative, depth) = pending.popLast() {
      let names: [String]
      switch Self.names(in: relative, of: sandbox, budget: &entriesLeft) {
      case .success((let read, let complete)):
        names = read
        if !complete { truncated = true }
      case .failure(let error):
        if relative.isEmpty { throw error }
        continue
      }
      for name in names.sorted() where !name.hasPrefix(".") {
        let child = relative.isEmpty ? name : relative + "/" + name
        // Looked at beneath the folder without following a link: a directory swapped for a
        // link while the walk runs lists nothing from where it points.
        guard let info = sandbox.status(of: child) else { continue }
        switch info.st_mode & S_IFMT {
        case S_IFDIR where depth < limits.maximumDepth:
          pending.append((child, depth + 1))
        case S_IFREG:
          let ext = (name as NSString).pathExtension.lowercased()
          guard Self.photoExtensions.contains(ext) else { continue }
          guard found.count < limits.maximumPhotoCount else {
            truncated = true
            break walk
          }
          found.append(
            Photo(
              path: child, byteCount: Int64(info.st_size),
              modifiedMilliseconds: Self.milliseconds(info),
              isScreenshot: Self.isScreenshot(sandbox, child, name: name)))
        default: continue
        }
      }
      if truncated { break }
    }
    photos = found.sorted { $0.path < $1.path }
    isTruncated = truncated
  }

  /// The names in the folder `relative` beneath `sandbox`'s (`""`: the folder itself), opened
  /// without following a link, read one at a time until `budget` is spent (`complete` is then
  /// `false`); `.` and `..` are not counted.
  private static func names(
    in relative: String, of sandbox: FolderSandbox, budget: inout Int
  ) -> Result<(names: [String], complete: Bool), PixScanError> {
    let descriptor: Int32
    do {
      descriptor =
        relative.isEmpty
        ? try sandbox.openRoot()
        : try sandbox.openBeneath(relative, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    } catch {
      return .failure(error)
    }
    guard let directory = fdopendir(descriptor) else {
      let message = String(cString: strerror(errno))
      close(descriptor)
      return .failure(.folderUnreadable(path: sandbox.root, message: message))
    }
    defer { closedir(directory) }
    var names: [String] = []
    while true {
      errno = 0
      guard let entry = readdir(directory) else {
        guard errno == 0 else {
          return .failure(
            .folderUnreadable(path: sandbox.root, message: String(cString: strerror(errno))))
        }
        return .success((names, true))
      }
      // A name that is not UTF-8 is counted and skipped: decoded with replacement characters it
      // would name another file, or none.
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(bytes: raw.prefix { $0 != 0 }, encoding: .utf8)
      }
      if name == "." || name == ".." { continue }
      guard budget > 0 else { return .success((names, false)) }
      budget -= 1
      if let name { names.append(name) }
    }
  }

  /// The modification time of `info` in milliseconds since 1970.
  static func milliseconds(_ info: stat) -> Int64 {
    #if canImport(Darwin)
      Int64(info.st_mtimespec.tv_sec) * 1000 + Int64(info.st_mtimespec.tv_nsec) / 1_000_000
    #else
      Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
    #endif
  }

  /// Applies ``ScreenshotRule``: by the name alone, and only for a PNG whose name does not say
  /// so, by its first bytes (read as photos are: no links followed, no FIFO waited on).
  static func isScreenshot(_ sandbox: FolderSandbox, _ relative: String, name: String) -> Bool {
    if ScreenshotRule.isScreenshot(fileName: name, header: []) { return true }
    guard (name as NSString).pathExtension.lowercased() == "png",
      let header = try? FileReading.readNow(
        sandbox, path: relative, maximumByteCount: ScreenshotRule.headerByteCount, prefixOnly: true)
    else { return false }
    return ScreenshotRule.isScreenshot(fileName: name, header: header)
  }

  /// The current size and modification time of the file at `path` beneath `sandbox`'s folder
  /// (reached without following a link), as a ``Photo`` key, or `nil` when it is gone or not a
  /// regular file.
  static func fileKey(
    _ sandbox: FolderSandbox, path: String, isScreenshot: Bool, maximumPathByteCount: Int = 4096
  ) -> Photo? {
    guard let info = sandbox.status(of: path, maximumByteCount: maximumPathByteCount),
      (info.st_mode & S_IFMT) == S_IFREG
    else { return nil }
    return Photo(
      path: path, byteCount: Int64(info.st_size), modifiedMilliseconds: milliseconds(info),
      isScreenshot: isScreenshot)
  }
}
