import Dispatch
import Foundation

/// A gate that holds work back on a dispatch thread until the test opens it, ignoring task
/// cancellation: the stand-in for C code that does not stop when asked.
public final class BlockingGate: @unchecked Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var opened = false
  private var entered = 0

  /// A closed gate.
  public init() {}

  /// Whether ``open()`` has been called.
  public var isOpen: Bool { lock.withLock { opened } }
  /// How many waits have begun.
  public var enteredCount: Int { lock.withLock { entered } }

  /// Waits, off the cooperative pool, until the gate opens; cancellation does not end it.
  public func wait() async {
    lock.withLock { entered += 1 }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        self.semaphore.wait()
        self.semaphore.signal()
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
