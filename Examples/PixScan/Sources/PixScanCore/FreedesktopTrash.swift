import CPixScanShim
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The user's home trash as the freedesktop.org Trash specification (1.0) defines it, and the
/// one way PixScan gets rid of a file: a rename into `files/` with a `.trashinfo` in `info/`.
///
/// It exists so that "delete" is always recoverable from the desktop's own trash can: a file is
/// never unlinked nor copied. A name already in the trash gets a numbered one (`cat.2.jpg`),
/// reserved by creating its `.trashinfo` with `O_EXCL` as the specification asks. A photo on
/// another filesystem than the trash is refused with ``PixScanError/crossDevice(path:trash:)``.
public struct FreedesktopTrash: Sendable, Hashable {
  /// The trash directory (`$XDG_DATA_HOME/Trash`), which holds `files/` and `info/`.
  public let directory: String

  /// Uses `directory` as the trash (created on first use).
  public init(directory: String) {
    self.directory = directory
  }

  /// The home trash the specification names for `environment`: `$XDG_DATA_HOME/Trash`, or
  /// `$HOME/.local/share/Trash` when `XDG_DATA_HOME` is unset, empty or relative.
  ///
  /// - Throws: ``PixScanError/trashFailed(path:message:)`` when neither variable is usable.
  public static func home(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(PixScanError) -> FreedesktopTrash {
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      return FreedesktopTrash(directory: data + "/Trash")
    }
    guard let home = environment["HOME"], home.hasPrefix("/") else {
      throw .trashFailed(path: "", message: "neither XDG_DATA_HOME nor HOME is an absolute path")
    }
    return FreedesktopTrash(directory: home + "/.local/share/Trash")
  }

  /// The folder trashed files are renamed into.
  public var filesDirectory: String { directory + "/files" }
  /// The folder the `.trashinfo` files are written to.
  public var infoDirectory: String { directory + "/info" }

  /// Moves the file at `absolute` into the trash and returns its name there: ``reserve(_:displayPath:date:)``
  /// then ``move(_:to:displayPath:)``.
  ///
  /// - Parameters:
  ///   - absolute: the file's absolute path (already checked to be inside the triaged folder).
  ///   - displayPath: the path reported in errors (relative to the folder).
  ///   - date: the deletion date written to the `.trashinfo` (local time, as the spec says).
  /// - Throws: ``PixScanError/crossDevice(path:trash:)`` when the trash is on another
  ///   filesystem, ``PixScanError/trashFailed(path:message:)`` otherwise.
  ///
  /// Not public: the path is resolved when it is renamed, so a folder on it swapped for a link
  /// meanwhile is followed. PixScan moves through a directory descriptor opened beneath the
  /// folder (``move(_:in:to:displayPath:)``).
  @discardableResult
  func moveToTrash(
    _ absolute: String, displayPath: String, date: Date = Date()
  ) throws(PixScanError) -> String {
    let name = try reserve(absolute, displayPath: displayPath, date: date)
    try move(absolute, to: name, displayPath: displayPath)
    return name
  }

  /// Picks the file's name in the trash and writes its `.trashinfo` (created with `O_EXCL`,
  /// flushed to disk), without moving the file yet: the caller records the name first, so that
  /// a crash between the two steps can be reconciled.
  ///
  /// - Throws: ``PixScanError/crossDevice(path:trash:)``,
  ///   ``PixScanError/trashFailed(path:message:)``.
  public func reserve(
    _ absolute: String, displayPath: String, date: Date = Date()
  ) throws(PixScanError) -> String {
    try makeDirectories(displayPath: displayPath)
    var source = stat()
    var files = stat()
    guard lstat(absolute, &source) == 0 else {
      throw .trashFailed(path: displayPath, message: "the file is gone")
    }
    guard stat(filesDirectory, &files) == 0 else {
      throw .trashFailed(path: displayPath, message: "the trash folder cannot be read")
    }
    guard source.st_dev == files.st_dev else {
      throw .crossDevice(path: displayPath, trash: directory)
    }
    let name = (absolute as NSString).lastPathComponent
    let info = Self.infoContents(originalPath: absolute, date: date)
    for attempt in 1...10_000 {
      let candidate = Self.candidateName(name, attempt: attempt)
      let infoPath = infoDirectory + "/" + candidate + ".trashinfo"
      let descriptor = open(infoPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
      if descriptor < 0 {
        if errno == EEXIST { continue }
        throw .trashFailed(
          path: displayPath,
          message: "cannot write \(infoPath): \(String(cString: strerror(errno)))")
      }
      let written = info.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      let synced = fsync(descriptor)
      let closed = close(descriptor)
      guard written == info.count, synced == 0, closed == 0 else {
        unlink(infoPath)
        throw .trashFailed(path: displayPath, message: "cannot write \(infoPath)")
      }
      var existing = stat()
      if lstat(filesDirectory + "/" + candidate, &existing) == 0 {
        // A file without its .trashinfo (left by another tool): keep both, try the next name.
        unlink(infoPath)
        continue
      }
      return candidate
    }
    throw .trashFailed(path: displayPath, message: "10 000 files of that name are in the trash")
  }

  /// Renames the file at `absolute` to `name` in `files/` (reserved by
  /// ``reserve(_:displayPath:date:)``), never replacing a file that appeared there meanwhile
  /// (`renameat2` with `RENAME_NOREPLACE`). On failure the reservation is released.
  ///
  /// - Throws: ``PixScanError/crossDevice(path:trash:)``,
  ///   ``PixScanError/trashFailed(path:message:)`` (also when the filesystem cannot rename
  ///   without replacing: PixScan never falls back to a move that could overwrite).
  ///
  /// Not public, for the reason ``moveToTrash(_:displayPath:date:)`` is not.
  func move(_ absolute: String, to name: String, displayPath: String) throws(PixScanError) {
    let target = filesDirectory + "/" + name
    guard Self.renameNoReplace(absolute, target) == 0 else {
      throw moveFailure(errno, name: name, displayPath: displayPath)
    }
  }

  /// Renames the entry `file` of the directory `directory` (a descriptor: the caller opened it
  /// beneath the triaged folder, following no link) to `name` in `files/` (reserved by
  /// ``reserve(_:displayPath:date:)``), with `renameat2(RENAME_NOREPLACE)` relative to both
  /// directories' descriptors: nothing on either path is resolved again, so a folder swapped
  /// for a link meanwhile is not followed. On failure the reservation is released.
  ///
  /// - Throws: as ``move(_:to:displayPath:)``.
  public func move(
    _ file: String, in directory: Int32, to name: String, displayPath: String
  ) throws(PixScanError) {
    let files = open(filesDirectory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard files >= 0 else {
      release(name)
      throw .trashFailed(path: displayPath, message: "the trash folder cannot be opened")
    }
    defer { close(files) }
    guard cpixscan_renameat_noreplace(directory, file, files, name) == 0 else {
      throw moveFailure(errno, name: name, displayPath: displayPath)
    }
  }

  /// The error for a rename into the trash that failed with `code`, after releasing `name`.
  func moveFailure(_ code: Int32, name: String, displayPath: String) -> PixScanError {
    release(name)
    if code == EXDEV { return .crossDevice(path: displayPath, trash: directory) }
    if code == EEXIST {
      return .trashFailed(path: displayPath, message: "a file named \(name) appeared in the trash")
    }
    return .trashFailed(path: displayPath, message: String(cString: strerror(code)))
  }

  /// Removes the `.trashinfo` reserved for `name` (the file was not moved).
  public func release(_ name: String) {
    guard Self.isTrashName(name) else { return }
    unlink(infoDirectory + "/" + name + ".trashinfo")
  }

  /// Whether `name` can be a name this trash gave a photo: one path component (no `/`, not `.`
  /// or `..`), no NUL (C calls would stop there and name another file), and short enough for
  /// its `.trashinfo` to be a file name. A name read back from a folder's database (which the
  /// folder carries, and anyone may have written) is used only when it is one.
  public static func isTrashName(_ name: String) -> Bool {
    !name.isEmpty && name != "." && name != ".." && !name.contains("/")
      && !name.utf8.contains(0) && name.utf8.count <= maximumNameBytes
  }

  /// `rename` that fails with `EEXIST` instead of replacing `target` (and with `EINVAL` or
  /// `ENOSYS` where that is impossible: then nothing is moved).
  static func renameNoReplace(_ source: String, _ target: String) -> Int32 {
    cpixscan_rename_noreplace(source, target)
  }

  /// Creates `files/` and `info/` (mode 0700) when missing.
  func makeDirectories(displayPath: String) throws(PixScanError) {
    for folder in [directory, filesDirectory, infoDirectory] {
      do {
        try FileManager.default.createDirectory(
          atPath: folder, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      } catch {
        throw .trashFailed(
          path: displayPath, message: "cannot create \(folder): \(error.localizedDescription)")
      }
    }
  }

  /// `cat.jpg` for the first attempt, then `cat.2.jpg`, `cat.3.jpg`, …
  static func candidateName(_ name: String, attempt: Int) -> String {
    if attempt == 1, name.utf8.count <= maximumNameBytes { return name }
    let ext = (name as NSString).pathExtension
    var stem = (name as NSString).deletingPathExtension
    func candidate() -> String {
      let numbered = attempt > 1 ? "\(stem).\(attempt)" : stem
      return ext.isEmpty ? numbered : "\(numbered).\(ext)"
    }
    // A name whose `.trashinfo` would be too long for a file name (255 bytes) is shortened,
    // whole characters from the end of its stem, so that the photo can still be trashed.
    var shortened = candidate()
    while shortened.utf8.count > maximumNameBytes, !stem.isEmpty {
      stem.removeLast()
      shortened = candidate()
    }
    while shortened.utf8.count > maximumNameBytes { shortened.removeLast() }
    return shortened
  }

  /// The longest name a trashed photo gets: its `.trashinfo`'s name must fit in 255 bytes.
  static let maximumNameBytes = 255 - ".trashinfo".utf8.count

  /// The `.trashinfo` text: the original absolute path, percent-encoded, and the deletion date
  /// as `YYYY-MM-DDThh:mm:ss` in local time.
  static func infoContents(originalPath: String, date: Date) -> Data {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "%;?#")
    let encoded = originalPath.addingPercentEncoding(withAllowedCharacters: allowed) ?? originalPath
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone.current
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
    let text = "[Trash Info]\nPath=\(encoded)\nDeletionDate=\(formatter.string(from: date))\n"
    return Data(text.utf8)
  }
}
