import Foundation

/// The answer to one wait, settled once by whichever comes first: the work, a deadline or the
/// caller's cancellation.
///
/// It exists so that a caller can stop waiting for work that does not stop at once (a C library
/// that checks its stop flag only now and then): the caller is answered at the deadline or on
/// cancellation, and the work finishes and cleans up on its own. Shared by its three users:
/// DexTextRecognition's calls, DexScanner's text pass and DexScanner's `withDeadline` (the cloud
/// pass's deadline). A lock (not an actor) because the settling side may be a
/// cancellation handler, which cannot await.
package final class FirstAnswer<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var settled: Value?
  private var waiter: CheckedContinuation<Value, Never>?

  /// An unsettled answer.
  package init() {}

  /// Settles with `value` unless settled already, and wakes the waiter.
  package func settle(_ value: Value) {
    lock.lock()
    guard settled == nil else {
      lock.unlock()
      return
    }
    settled = value
    let waiter = self.waiter
    self.waiter = nil
    lock.unlock()
    waiter?.resume(returning: value)
  }

  /// The settled value, waiting for it when needed (one waiter).
  package func wait() async -> Value {
    await withCheckedContinuation { continuation in
      lock.lock()
      if let settled {
        lock.unlock()
        continuation.resume(returning: settled)
      } else {
        waiter = continuation
        lock.unlock()
      }
    }
  }

  /// The settled value, or `timedOut` at `deadline`, or `cancelled` as soon as the calling task
  /// is cancelled: whichever comes first settles the answer.
  package func wait(
    until deadline: ContinuousClock.Instant, timedOut: Value, cancelled: Value
  ) async -> Value {
    let timer = Task {
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled else { return }
      self.settle(timedOut)
    }
    defer { timer.cancel() }
    return await withTaskCancellationHandler {
      await wait()
    } onCancel: {
      settle(cancelled)
    }
  }
}
