import Dispatch
import Foundation

/// A gate that holds work back on a dispatch thread until the test opens it, ignoring task
/// cancellation: the stand-in for C code that does not stop when asked.
///
/// It opens by itself after ``limit`` (then ``isOpen`` is true), so that a regression makes the
/// test fail on its `isOpen` check rather than hang.
public final class BlockingGate: @unchecked Sendable {
  /// How long a wait lasts at most before the gate opens by itself.
  public let limit: DispatchTimeInterval
  private let semaphore = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var opened = false
  private var entered = 0

  /// A closed gate that opens by itself after `limit`.
  public init(limit: DispatchTimeInterval = .seconds(30)) {
    self.limit = limit
  }

  /// Whether ``open()`` has been called.
  public var isOpen: Bool { lock.withLock { opened } }
  /// How many waits have begun.
  public var enteredCount: Int { lock.withLock { entered } }

  /// Waits, off the cooperative pool, until the gate opens; cancellation does not end it.
  public func wait() async {
    lock.withLock { entered += 1 }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        if self.semaphore.wait(timeout: .now() + self.limit) == .timedOut {
          self.open()
        } else {
          self.semaphore.signal()
        }
        continuation.resume()
      }
    }
  }

  /// Lets every waiter, present and future, through.
  public func open() {
    let first = lock.withLock {
      defer { opened = true }
      return !opened
    }
    if first { semaphore.signal() }
  }
}
