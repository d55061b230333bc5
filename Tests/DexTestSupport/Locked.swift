import Foundation

/// A value behind a lock, for tests that share state between threads or tasks on every
/// platform the package supports: `Mutex` (Synchronization) needs macOS 15 and iOS 18, newer
/// than the package's oldest platforms, so a test target that used it would not compile there.
public final class Locked<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value  // guarded by `lock`

  /// Holds `value`.
  public init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` on the value with the lock held, and returns what it returns.
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try lock.sync { try body(&value) }
  }
}
