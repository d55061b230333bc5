import CPixScanShim

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opening files beneath the folder without following a symbolic link at any component.
///
/// A path checked on its real path and then opened by its lexical one can be redirected in
/// between: someone who can write in the folder swaps `sub/` for a link to another directory,
/// and the open (or the move to the trash) follows it. So PixScan never opens a photo by its
/// absolute path: it opens the folder's real path, then the relative path beneath that
/// descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` (Linux 5.6 and later), or,
/// where that call is missing, one component at a time with `openat(O_NOFOLLOW | O_DIRECTORY)`.
/// A move renames relative to the parent directory's descriptor (`renameat2`), so a swap made
/// after the check finds nothing to follow.
extension FolderSandbox {
  /// A descriptor of the folder itself (its real path; a link put in its place is refused).
  ///
  /// - Throws: ``PixScanError/folderUnreadable(path:message:)``.
  func openRoot() throws(PixScanError) -> Int32 {
    let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .folderUnreadable(path: root, message: String(cString: strerror(errno)))
    }
    return descriptor
  }

  /// Opens `relative` (checked by ``validate(_:maximumByteCount:)``) beneath the folder with
  /// `flags`, following no link at any component. The caller closes the descriptor.
  ///
  /// - Throws: ``PixScanError/outsideFolder(_:)`` when a component is a link or leaves the
  ///   folder, ``PixScanError/notFound(_:)`` otherwise.
  func openBeneath(
    _ relative: String, flags: Int32, maximumByteCount: Int = 4096
  ) throws(PixScanError) -> Int32 {
    try validate(relative, maximumByteCount: maximumByteCount)
    let root = try openRoot()
    defer { close(root) }
    let descriptor = Self.openBeneath(root, relative, flags: flags)
    guard descriptor >= 0 else {
      let code = errno
      if code == ELOOP || code == EXDEV || code == ENOTDIR { throw .outsideFolder(relative) }
      throw .notFound(relative)
    }
    return descriptor
  }

  /// The directory that holds `relative`, opened beneath the folder (see
  /// ``openBeneath(_:flags:maximumByteCount:)``), and the file's name in it. The caller closes the
  /// descriptor.
  func openParent(
    _ relative: String, maximumByteCount: Int = 4096
  ) throws(PixScanError) -> (directory: Int32, name: String) {
    try validate(relative, maximumByteCount: maximumByteCount)
    guard let slash = relative.lastIndex(of: "/") else { return (try openRoot(), relative) }
    let parent = String(relative[..<slash])
    let name = String(relative[relative.index(after: slash)...])
    let directory = try openBeneath(
      parent, flags: O_RDONLY | O_DIRECTORY, maximumByteCount: maximumByteCount)
    return (directory, name)
  }

  /// The `lstat` of `relative` reached beneath the folder without following a link (a link at
  /// the last component is described, not followed), or `nil` when it cannot be reached so.
  func status(of relative: String, maximumByteCount: Int = 4096) -> stat? {
    guard let parent = try? openParent(relative, maximumByteCount: maximumByteCount) else {
      return nil
    }
    defer { close(parent.directory) }
    var info = stat()
    guard fstatat(parent.directory, parent.name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
      return nil
    }
    return info
  }

  /// The folder's state directory (``stateDirectory``), created (mode 0700) when missing and
  /// checked to be a directory of its own, with no database file in it that is anything but a
  /// regular file: a `.pixscan` that is a symbolic link, or a `pixscan.sqlite` (or its journal,
  /// WAL or shared-memory file) that is one (to another folder's state, to another SQLite file
  /// of the user's, or dangling, where SQLite would create one), is refused, so that the
  /// database is never opened or written anywhere else.
  ///
  /// - Throws: ``PixScanError/folderUnreadable(path:message:)``.
  public func checkedStateDirectory() throws(PixScanError) -> String {
    let root = try openRoot()
    defer { close(root) }
    if mkdirat(root, Self.stateDirectoryName, 0o700) != 0, errno != EEXIST {
      throw .folderUnreadable(
        path: stateDirectory, message: "it cannot be created: \(String(cString: strerror(errno)))")
    }
    var info = stat()
    guard fstatat(root, Self.stateDirectoryName, &info, AT_SYMLINK_NOFOLLOW) == 0,
      (info.st_mode & S_IFMT) == S_IFDIR
    else {
      throw .folderUnreadable(
        path: stateDirectory,
        message:
          "\(Self.stateDirectoryName) is a symbolic link or not a folder; PixScan keeps its state only in a folder of its own"
      )
    }
    let state = Self.openBeneath(root, Self.stateDirectoryName, flags: O_RDONLY | O_DIRECTORY)
    guard state >= 0 else {
      throw .folderUnreadable(
        path: stateDirectory, message: "it cannot be opened: \(String(cString: strerror(errno)))")
    }
    defer { close(state) }
    for suffix in ["", "-journal", "-wal", "-shm"] {
      let name = PixScanStore.fileName + suffix
      var file = stat()
      guard fstatat(state, name, &file, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
      guard (file.st_mode & S_IFMT) == S_IFREG else {
        throw .folderUnreadable(
          path: stateDirectory + "/" + name,
          message:
            "it is a symbolic link or not a file; PixScan opens its database only as a file of its own"
        )
      }
    }
    return stateDirectory
  }

  /// Opens `relative` beneath the directory `directory`: `openat2` with `RESOLVE_BENEATH` and
  /// `RESOLVE_NO_SYMLINKS`, or ``walkBeneath(_:_:flags:)`` where the kernel has no `openat2`.
  /// -1 with `errno` on failure.
  static func openBeneath(_ directory: Int32, _ relative: String, flags: Int32) -> Int32 {
    let descriptor = cpixscan_openat2_beneath(directory, relative, flags | O_CLOEXEC)
    // ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that refuses calls it does not know.
    guard descriptor < 0, errno == ENOSYS || errno == EPERM else { return descriptor }
    return walkBeneath(directory, relative, flags: flags)
  }

  /// Opens `relative` beneath `directory` one component at a time: each directory with
  /// `openat(O_DIRECTORY | O_NOFOLLOW)` relative to the one before, the last component with
  /// `O_NOFOLLOW`; an empty, `.` or `..` component fails with `EXDEV`. -1 with `errno` on
  /// failure.
  static func walkBeneath(_ directory: Int32, _ relative: String, flags: Int32) -> Int32 {
    let components = relative.split(separator: "/", omittingEmptySubsequences: false)
    guard let last = components.last,
      components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
    else {
      errno = EXDEV
      return -1
    }
    var current = dup(directory)
    guard current >= 0 else { return -1 }
    for component in components.dropLast() {
      let next = openat(
        current, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      let code = errno
      close(current)
      guard next >= 0 else {
        errno = code
        return -1
      }
      current = next
    }
    let descriptor = openat(current, String(last), flags | O_NOFOLLOW | O_CLOEXEC)
    let code = errno
    close(current)
    errno = code
    return descriptor
  }
}
