import Foundation

/// A flag set once when work is cancelled, read from any thread: how a cancellation seen in one
/// place (a task's cancellation handler, the thread of an inference's first view) reaches work
/// running on another thread.
final class CancellationFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false  // guarded by `lock`
  /// Whether ``set()`` has been called.
  var isSet: Bool { lock.withLock { value } }
  /// Marks the work cancelled; it stays so.
  func set() { lock.withLock { value = true } }
}
