import NIOConcurrencyHelpers

/// Lets at most `width` pieces of work run at once; the others wait, first come first served.
///
/// It exists so that a burst of requests (a page prefetching, many swipes up) queues instead of
/// decoding dozens of photos at once, and so that mutations run one at a time (width 1): memory
/// and CPU stay bounded by the width. A waiter whose task is cancelled (the server shutting
/// down; Hummingbird does not cancel a handler whose client left) leaves the line at once with
/// ``PixScanError/cancelled``. Both the wait and the work run in the caller's isolation: an
/// actor's callers queue in the order they reached it, and its closure keeps its state.
final class ConcurrencyLimiter: Sendable {
  /// How many may run at once (at least 1).
  let width: Int

  private struct State {
    var running = 0
    var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    var lastID: UInt64 = 0
    var peak = 0

    /// Takes a free slot, if any.
    mutating func enter(width: Int) -> Bool {
      guard running < width else { return false }
      running += 1
      peak = max(peak, running)
      return true
    }
  }

  private let state = NIOLockedValueBox(State())

  init(width: Int) {
    self.width = max(1, width)
  }

  /// The most that ever ran at once (for tests and statistics).
  var peak: Int { state.withLockedValue { $0.peak } }

  /// How many wait in line now (for tests: they order their waiters by it, not by sleeping).
  var waiting: Int { state.withLockedValue { $0.waiters.count } }

  /// Runs `work` once fewer than `width` others run.
  ///
  /// - Throws: ``PixScanError/cancelled`` when the task is cancelled while it waits, or what
  ///   `work` throws.
  func run<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ work: () async throws(PixScanError) -> T
  ) async throws(PixScanError) -> T {
    try await acquire(isolation: isolation)
    defer { release() }
    return try await work()
  }

  private func acquire(isolation: isolated (any Actor)?) async throws(PixScanError) {
    let width = self.width
    let id: UInt64? = state.withLockedValue { state in
      if state.enter(width: width) { return nil }
      state.lastID += 1
      return state.lastID
    }
    guard let id else { return }
    let handed = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        // A slot may have freed, or the task been cancelled, since the first look.
        let now: Bool? = state.withLockedValue { state in
          if Task.isCancelled { return false }
          if state.enter(width: width) { return true }
          state.waiters.append((id, continuation))
          return nil
        }
        if let now { continuation.resume(returning: now) }
      }
    } onCancel: {
      // Still in line: leave it. Already handed a slot (removed by `release`): keep it.
      let waiter = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return state.waiters.remove(at: index).continuation
      }
      waiter?.resume(returning: false)
    }
    guard handed else { throw .cancelled }
  }

  private func release() {
    // Handed over to the first waiter: `running` stays counted for it.
    let next = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
      guard !state.waiters.isEmpty else {
        state.running -= 1
        return nil
      }
      return state.waiters.removeFirst().continuation
    }
    next?.resume(returning: true)
  }
}
