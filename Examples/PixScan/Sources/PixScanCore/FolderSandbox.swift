import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The folder PixScan triages, and the one gate every path from a request goes through.
///
/// It exists so that nothing PixScan reads, moves or writes is outside the folder it was given:
/// a request path must be relative, without `.` or `..` components, and is opened beneath the
/// folder with no symbolic link followed on its way (`openat2` with `RESOLVE_BENEATH` and
/// `RESOLVE_NO_SYMLINKS`): a path through a link, even one pointing inside the folder, is
/// refused. (``resolve(_:maximumByteCount:)``, which follows links and checks where they end,
/// is for callers of this library that want that; PixScan's own requests do not use it.)
public struct FolderSandbox: Sendable, Hashable {
  /// The folder's real path (symbolic links resolved), without a trailing slash.
  public let root: String
  /// The name of the folder's own state directory, never listed nor served.
  public static let stateDirectoryName = ".pixscan"

  /// Opens `folder`, which must exist and be a directory.
  ///
  /// - Throws: ``PixScanError/folderUnreadable(path:message:)``.
  public init(folder: String) throws(PixScanError) {
    guard let real = Self.realPath(folder) else {
      throw .folderUnreadable(path: folder, message: "it does not exist")
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory),
      isDirectory.boolValue
    else { throw .folderUnreadable(path: folder, message: "it is not a folder") }
    root = real
  }

  /// The folder's own state directory (`FOLDER/.pixscan`), where the progress database lives.
  public var stateDirectory: String { root + "/" + Self.stateDirectoryName }

  /// Checks a request's relative path lexically: not empty, not absolute, no `.`, `..` or empty
  /// components, no NUL, not inside the state directory, at most `maximumByteCount` bytes.
  ///
  /// - Throws: ``PixScanError/invalidPath(_:)``.
  public func validate(_ relative: String, maximumByteCount: Int = 4096) throws(PixScanError) {
    guard !relative.isEmpty, relative.utf8.count <= maximumByteCount, !relative.hasPrefix("/"),
      !relative.contains("\0"), !relative.contains("\\")
    else { throw .invalidPath(relative) }
    let components = relative.split(separator: "/", omittingEmptySubsequences: false)
    for component in components
    where component.isEmpty || component == "." || component == ".."
      || component == Self.stateDirectoryName
    {
      throw .invalidPath(relative)
    }
  }

  /// The absolute path of the regular file `relative` names, after checking it lexically
  /// (``validate(_:maximumByteCount:)``) and checking that its real path is inside the folder.
  ///
  /// - Returns: the path inside the folder as given (not the link's target), so that a move
  ///   moves what the user saw.
  /// - Throws: ``PixScanError/invalidPath(_:)``, ``PixScanError/outsideFolder(_:)`` or
  ///   ``PixScanError/notFound(_:)``.
  ///
  /// Not public: a path checked here is resolved again by whatever uses it, so a folder swapped
  /// for a link in between is followed. PixScan itself opens every path beneath the folder's
  /// descriptor instead (``openBeneath(_:flags:maximumByteCount:)``); this check stays for the
  /// tests of ``validate(_:maximumByteCount:)``'s rules.
  func resolve(
    _ relative: String, maximumByteCount: Int = 4096
  ) throws(PixScanError) -> String {
    try validate(relative, maximumByteCount: maximumByteCount)
    let lexical = root + "/" + relative
    guard let real = Self.realPath(lexical) else { throw .notFound(relative) }
    guard real.hasPrefix(root + "/") else { throw .outsideFolder(relative) }
    var info = stat()
    guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw .notFound(relative)
    }
    return lexical
  }

  /// Whether `absolute` is a symbolic link itself (not followed).
  public static func isSymbolicLink(_ absolute: String) -> Bool {
    var info = stat()
    return lstat(absolute, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
  }

  /// `realpath(3)`: the absolute path with every link and `.`/`..` resolved, `nil` if it fails.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
