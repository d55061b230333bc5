import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The store directory's layout and the few POSIX file operations the store needs to be
/// crash-safe: durable writes (write, fsync, then rename), directory syncs and typed errors.
///
/// Everything the store creates is private to its owner: directories ``directoryMode`` (0700),
/// files ``fileMode`` (0600), whatever the process umask; photos and the collection's metadata
/// are personal data.
///
/// Layout, all paths relative to the store directory so a moved or restored store keeps working:
/// - `Dex.sqlite` (+ `-wal`, `-shm`): metadata.
/// - `images/<xx>/<ID>.image|.thumbnail`: published image files, sharded by the id's first byte.
/// - `tmp/<ID>.image|.thumbnail`: the journal of in-flight writes and deletes; see
///   ``DexStore`` for how opening resolves what a crash left there.
struct StoreFiles: Sendable {
  /// The kind of image file kept for an entry.
  enum Kind: String, Sendable, CaseIterable {
    case image
    case thumbnail
  }

  let root: String

  /// The mode of every directory the store creates: owner only.
  static let directoryMode: mode_t = 0o700
  /// The mode of every file the store (and an archive export) creates: owner read/write.
  static let fileMode: mode_t = 0o600

  init(root: URL) {
    var path = root.standardizedFileURL.path
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    self.root = path
  }

  var databasePath: String { root + "/Dex.sqlite" }
  var lockPath: String { root + "/.lock" }
  var imagesPath: String { root + "/images" }
  var tmpPath: String { root + "/tmp" }

  /// `images/<xx>/<ID>.<kind>`, the path stored in the database.
  static func relativePath(id: String, kind: Kind) -> String {
    "images/\(shard(of: id))/\(id).\(kind.rawValue)"
  }

  static func shard(of id: String) -> String { String(id.lowercased().prefix(2)) }

  func absolute(_ relativePath: String) -> String { root + "/" + relativePath }

  /// `tmp/<ID>.<kind>`: where an insert stages a file until its row is committed.
  func stagedPath(id: String, kind: Kind) -> String { tmpPath + "/\(id).\(kind.rawValue)" }

  /// `tmp/<ID>.<kind>.trash-<random>`: where a delete parks a file until its row is gone.
  func trashPath(id: String, kind: Kind) -> String {
    tmpPath + "/\(id).\(kind.rawValue).trash-\(String(UInt64.random(in: .min ... .max), radix: 16))"
  }

  /// The id and kind a `tmp/` file name stands for, or `nil` for a name the store never writes.
  static func parseJournalName(_ name: String) -> (id: String, kind: Kind)? {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2 || (parts.count == 3 && parts[2].hasPrefix("trash-")),
      let id = UUID(uuidString: String(parts[0]))?.uuidString, id == parts[0],
      let kind = Kind(rawValue: String(parts[1]))
    else { return nil }
    return (id, kind)
  }

  /// Whether `relativePath` is the one this store writes for entry `id`'s file of `kind`.
  ///
  /// Anything else in a row (from a damaged, restored or tampered database) is never opened,
  /// moved or removed: a path naming `Dex.sqlite`, `images` or another entry's file would let a
  /// delete take the database, every photo or a neighbour's photo with it.
  static func isStoredPath(_ relativePath: String, id: String, kind: Kind) -> Bool {
    relativePath == self.relativePath(id: id, kind: kind)
  }

  // MARK: Directory setup

  /// Creates the store directory, `tmp/` and the 256 image shards, and proves the directory is
  /// writable by creating and removing a file (root ignores permission bits, so `access(2)` is
  /// not enough).
  func prepareDirectories() throws {
    try makeDirectory(root, intermediate: true)
    try makeDirectory(tmpPath, intermediate: false)
    try makeDirectory(imagesPath, intermediate: false)
    let hex = Array("0123456789abcdef")
    var created = false
    for high in hex {
      for low in hex {
        let shardPath = imagesPath + "/" + String([high, low])
        if !directoryExists(shardPath) {
          try makeDirectory(shardPath, intermediate: false)
          created = true
        }
      }
    }
    if created { try syncDirectory(imagesPath) }
    let probe = tmpPath + "/.probe-\(getpid())-\(UInt32.random(in: .min ... .max))"
    let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Self.fileMode)
    guard fd >= 0 else { throw Self.error(errno, "create a file in", tmpPath) }
    _ = close(fd)
    _ = unlink(probe)
  }

  func directoryExists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  func fileExists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0
  }

  private func makeDirectory(_ path: String, intermediate: Bool) throws {
    if mkdir(path, Self.directoryMode) == 0 { return }
    let code = errno
    if code == EEXIST && directoryExists(path) { return }
    if code == ENOENT && intermediate {
      let parent = (path as NSString).deletingLastPathComponent
      if !parent.isEmpty && parent != path {
        try makeDirectory(parent, intermediate: true)
        if mkdir(path, Self.directoryMode) == 0 || (errno == EEXIST && directoryExists(path)) {
          return
        }
        throw Self.error(errno, "create the directory", path)
      }
    }
    throw Self.error(code, "create the directory", path)
  }

  // MARK: File operations

  /// Writes `data` to `path` (replacing it) and fsyncs it before returning.
  func writeDurably(_ data: Data, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, Self.fileMode)
    guard fd >= 0 else { throw Self.error(errno, "create", path) }
    var failure: (any Error)?
    data.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return }
      var offset = 0
      while offset < raw.count {
        let written = write(fd, base + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          failure = Self.error(errno, "write", path)
          return
        }
        offset += written
      }
    }
    if failure == nil && fsync(fd) != 0 { failure = Self.error(errno, "sync", path) }
    if close(fd) != 0 && failure == nil { failure = Self.error(errno, "close", path) }
    if let failure {
      _ = unlink(path)
      throw failure
    }
  }

  /// Fsyncs a directory so that the names created or renamed in it survive a power cut.
  func syncDirectory(_ path: String) throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Self.error(errno, "open the directory", path) }
    defer { _ = close(fd) }
    if fsync(fd) != 0 && errno != EINVAL { throw Self.error(errno, "sync the directory", path) }
  }

  /// Reads a whole file, refusing files larger than `maximumBytes`.
  /// Returns `nil` when the file does not exist.
  func read(_ path: String, maximumBytes: Int) throws -> Data? {
    // Never through a symbolic link, and without blocking on a FIFO put in a file's place.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw Self.error(errno, "open", path)
    }
    defer { _ = close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw Self.error(errno, "inspect", path) }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw DexStoreError.io(operation: "read", path: path, detail: "not a regular file")
    }
    let size = Int(info.st_size)
    guard size <= maximumBytes else {
      throw DexStoreError.io(
        operation: "read", path: path, detail: "the file is larger than \(maximumBytes) bytes")
    }
    var data = Data(count: size)
    var failure: (any Error)?
    var total = 0
    data.withUnsafeMutableBytes { raw in
      guard let base = raw.baseAddress else { return }
      while total < size {
        let count = posixRead(fd, base + total, size - total)
        if count < 0 {
          if errno == EINTR { continue }
          failure = Self.error(errno, "read", path)
          return
        }
        if count == 0 { break }
        total += count
      }
    }
    if let failure { throw failure }
    if total < size { data.count = total }
    return data
  }

  /// Renames atomically, replacing `destination`. The rename itself is durable only once the
  /// destination's directory is synced: see ``renameDurably(_:to:)``.
  func rename(_ source: String, to destination: String) throws {
    if posixRename(source, destination) != 0 {
      throw Self.error(errno, "move", source)
    }
  }

  /// Renames atomically and then fsyncs the destination's directory, so that the new name
  /// survives a power cut (ext4 and XFS may otherwise forget the rename of a file fsynced before).
  func renameDurably(_ source: String, to destination: String) throws {
    try rename(source, to: destination)
    try syncDirectory(Self.parentDirectory(of: destination))
  }

  /// The directory holding `path` (`.` for a bare name, `/` for a name in the root). Plain
  /// string work: corelibs Foundation's `deletingLastPathComponent` traps on a bare name.
  static func parentDirectory(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    if slash == trimmed.startIndex { return "/" }
    return String(trimmed[..<slash])
  }

  /// Creates `path` for writing with ``fileMode``, failing if it exists.
  func createPrivateFile(_ path: String) throws -> FileHandle {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Self.fileMode)
    guard fd >= 0 else { throw Self.error(errno, "create", path) }
    return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
  }

  /// Creates the database file empty with ``fileMode`` when it does not exist yet, so that
  /// SQLite (which gives new files 0644, and its `-wal` and `-shm` files the database's mode)
  /// never makes the collection readable by other users. An empty file is an empty database.
  func createDatabaseFileIfMissing() throws {
    let fd = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Self.fileMode)
    if fd >= 0 {
      _ = close(fd)
      try syncDirectory(root)
      return
    }
    if errno != EEXIST { throw Self.error(errno, "create", databasePath) }
  }

  /// What ``link(_:to:)`` did.
  enum LinkResult: Sendable, Equatable {
    case linked
    /// `source` does not exist.
    case missing
    /// The file system (or the folder layout: `images/` on another volume) has no hard links.
    case unsupported
  }

  /// Gives the file at `source` a second name, `destination` (a hard link, in the same store):
  /// the file's bytes then stay readable under `destination` whatever happens to `source`.
  func link(_ source: String, to destination: String) throws -> LinkResult {
    if posixLink(source, destination) == 0 { return .linked }
    switch errno {
    case ENOENT: return .missing
    case EPERM, ENOTSUP, EOPNOTSUPP, EXDEV, EMLINK: return .unsupported
    default: throw Self.error(errno, "link", source)
    }
  }

  /// Removes a file; a file that is already gone is not an error.
  func remove(_ path: String) throws {
    if unlink(path) != 0 && errno != ENOENT { throw Self.error(errno, "remove", path) }
  }

  /// The system error code behind a Foundation file error: its own code in the POSIX domain,
  /// else its underlying POSIX error's (Foundation on Linux wraps them in Cocoa errors), else
  /// ENOSPC for Cocoa's out-of-space error, else EIO.
  static func systemCode(of error: any Error) -> Int32 {
    let error = error as NSError
    if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain
    {
      return Int32(underlying.code)
    }
    if error.domain == NSCocoaErrorDomain, error.code == CocoaError.fileWriteOutOfSpace.rawValue {
      return ENOSPC
    }
    return EIO
  }

  /// Whether `path` is a regular file (not a folder, link or device), without following a link.
  func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
  }

  /// The names in a directory (not `.`/`..`); empty when it does not exist.
  func contents(of path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
  }

  // MARK: Errors

  /// Whether writes fail for lack of space: under 8 MiB free on the file system, or a process
  /// file-size limit (`RLIMIT_FSIZE`) that the database or its WAL has reached.
  func isOutOfSpace() -> Bool {
    var fileSystem = statvfs()
    if statvfs(root, &fileSystem) == 0,
      UInt64(fileSystem.f_bavail) * UInt64(fileSystem.f_frsize) < 8 << 20
    {
      return true
    }
    var limit = rlimit()
    #if os(Linux)
      let resource = Int32(RLIMIT_FSIZE.rawValue)
      let unlimited = rlim_t.max  // RLIM_INFINITY does not import on Glibc
    #else
      let resource = RLIMIT_FSIZE
      let unlimited = RLIM_INFINITY
    #endif
    guard getrlimit(resource, &limit) == 0, limit.rlim_cur != unlimited else { return false }
    for path in [databasePath, databasePath + "-wal"] {
      var info = stat()
      if stat(path, &info) == 0, UInt64(info.st_size) + (64 << 10) >= UInt64(limit.rlim_cur) {
        return true
      }
    }
    return false
  }

  /// Maps an errno to the store's typed error.
  static func error(_ code: Int32, _ operation: String, _ path: String) -> DexStoreError {
    switch code {
    case ENOSPC, EFBIG, EDQUOT:
      return .diskFull(path: path)
    case EACCES, EPERM, EROFS:
      return .unwritableDirectory(path: path, detail: String(cString: strerror(code)))
    default:
      return .io(operation: operation, path: path, detail: String(cString: strerror(code)))
    }
  }
}

// `read`, `rename` and `link` are shadowed by the methods above; these reach the C functions.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(fd, buffer, count)
}

private func posixRename(_ source: String, _ destination: String) -> Int32 {
  rename(source, destination)
}

private func posixLink(_ source: String, _ destination: String) -> Int32 {
  link(source, destination)
}
