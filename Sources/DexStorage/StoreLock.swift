import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An advisory `flock(2)` on the store's `.lock` file that tells whether this is the only
/// open ``DexStore`` on the directory, in any process.
///
/// Every open store holds a shared lock. Opening first tries an exclusive one: if it is granted,
/// no other store is open anywhere, so no write can be in flight and files left in `tmp/` are a
/// crash's leftovers that are safe to resolve. The kernel drops the lock when a process dies,
/// even by SIGKILL. A child the host spawns holds a copy of the descriptor until it execs
/// (`O_CLOEXEC` closes it then), so an open in that moment sees the directory as shared and
/// leaves `tmp/` to a later open: the safe way round.
final class StoreLock: @unchecked Sendable {
  private let mutex = NSLock()
  private var descriptor: Int32

  /// Opens the lock file and takes the exclusive lock if possible.
  /// - Returns: the lock and whether it is exclusive.
  static func acquire(path: String, timeout: TimeInterval) throws -> (StoreLock, exclusive: Bool) {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, StoreFiles.fileMode)
    guard fd >= 0 else { throw StoreFiles.error(errno, "open the lock file", path) }
    let lock = StoreLock(descriptor: fd)
    if flock(fd, LOCK_EX | LOCK_NB) == 0 { return (lock, true) }
    let deadline = Date().addingTimeInterval(timeout)
    while flock(fd, LOCK_SH | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
        throw DexStoreError.busy(path: path)
      }
      usleep(5_000)
    }
    return (lock, false)
  }

  private init(descriptor: Int32) { self.descriptor = descriptor }

  /// Turns the exclusive lock into a shared one once opening is done.
  func downgrade() {
    mutex.lock()
    defer { mutex.unlock() }
    if descriptor >= 0 { _ = flock(descriptor, LOCK_SH) }
  }

  /// Whether ``release()`` was called.
  var isReleased: Bool {
    mutex.lock()
    defer { mutex.unlock() }
    return descriptor < 0
  }

  /// Drops the lock; later calls do nothing.
  func release() {
    mutex.lock()
    defer { mutex.unlock() }
    if descriptor >= 0 {
      _ = close(descriptor)
      descriptor = -1
    }
  }

  deinit { release() }
}
