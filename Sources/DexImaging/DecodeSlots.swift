#if os(Linux) && SystemImageCodecs
  import Dispatch
  import Synchronization

  /// The right to talk to one of a ``DecodeWorkerPool``'s workers: at most `count` held at once,
  /// and the callers waiting for one served first in, first out, whether they block a thread
  /// (the synchronous decoding protocols) or await (the async ones).
  ///
  /// A freed slot is handed straight to the oldest waiter, so no waiter polls for it: a worker
  /// never sits idle while a caller waits, and a caller that comes later cannot take the slot
  /// before one that came earlier. A waiter that is cancelled, or whose deadline passes, leaves
  /// the queue at once (a blocked thread within 50 ms, the interval at which it looks at its
  /// cancellation).
  ///
  /// The shared state sits behind a `Mutex` rather than in an actor because blocking callers
  /// cannot await; nothing blocks and no continuation is resumed while it is held.
  final class DecodeSlots: Sendable {
    /// Why a caller got no slot.
    enum Refusal: Error, Equatable {
      case cancelled
      case timedOut
    }

    private enum Waiter {
      case blocking(DispatchSemaphore)
      case awaiting(CheckedContinuation<Refusal?, Never>)
    }

    private struct State {
      var free: Int
      var queue: [(id: UInt64, waiter: Waiter)] = []
      var nextID: UInt64 = 0
      var served: [UInt64] = []
    }

    private let state: Mutex<State>

    /// Slots for `count` workers (at least one).
    init(count: Int) {
      state = Mutex(State(free: max(1, count)))
    }

    /// Takes a slot, blocking the calling thread while every slot is held; `nil` once it holds
    /// one. `isCancelled` is asked every 50 ms while it waits.
    func acquire(
      until deadline: ContinuousClock.Instant, isCancelled: () -> Bool
    ) -> Refusal? {
      let semaphore = DispatchSemaphore(value: 0)
      guard let id = takeOrEnqueue(.blocking(semaphore)) else { return nil }
      while semaphore.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
        let refusal: Refusal? =
          isCancelled() ? .cancelled : ContinuousClock.now >= deadline ? .timedOut : nil
        guard let refusal else { continue }
        if dequeue(id) != nil { return refusal }
        // The slot was handed over while this caller gave up: it holds it, so passes it on.
        semaphore.wait()
        release()
        return refusal
      }
      return nil
    }

    /// Takes a slot, suspending the calling task (and holding no thread) while every slot is
    /// held; `nil` once it holds one. Cancelling the task ends the wait at once.
    func acquire(until deadline: ContinuousClock.Instant) async -> Refusal? {
      let id = state.withLock { state in
        defer { state.nextID += 1 }
        return state.nextID
      }
      return await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Refusal?, Never>) in
          guard takeOrEnqueue(.awaiting(continuation), id: id) != nil else {
            continuation.resume(returning: nil)
            return
          }
          // A cancellation that came before the waiter was queued found nothing to remove.
          if Task.isCancelled {
            refuse(id, .cancelled)
            return
          }
          expire(id, at: deadline)
        }
      } onCancel: {
        refuse(id, .cancelled)
      }
    }

    /// Gives a slot back: to the oldest waiter, or to the free ones when nobody waits.
    func release() {
      let next: Waiter? = state.withLock { state in
        guard !state.queue.isEmpty else {
          state.free += 1
          return nil
        }
        let first = state.queue.removeFirst()
        state.served.append(first.id)
        if state.served.count > 64 { state.served.removeFirst() }
        return first.waiter
      }
      switch next {
      case .blocking(let semaphore): semaphore.signal()
      case .awaiting(let continuation): continuation.resume(returning: nil)
      case nil: break
      }
    }

    /// The waiters now queued (for tests).
    var waitingCount: Int { state.withLock { $0.queue.count } }
    /// The slots no caller holds (for tests).
    var freeCount: Int { state.withLock { $0.free } }
    /// The arrival numbers of the waiters served, in the order served (for tests; the last 64).
    var servedOrder: [UInt64] { state.withLock { $0.served } }

    /// Takes a free slot when nobody waits before the caller (`nil`), else queues `waiter` and
    /// returns its arrival number (`id`, or a new one).
    private func takeOrEnqueue(_ waiter: Waiter, id: UInt64? = nil) -> UInt64? {
      state.withLock { state in
        if state.queue.isEmpty, state.free > 0 {
          state.free -= 1
          return nil
        }
        let arrival = id ?? state.nextID
        if id == nil { state.nextID += 1 }
        state.queue.append((arrival, waiter))
        return arrival
      }
    }

    /// Takes waiter `id` out of the queue, unless it was served or refused already.
    private func dequeue(_ id: UInt64) -> Waiter? {
      state.withLock { state in
        guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
        return state.queue.remove(at: index).waiter
      }
    }

    /// Refuses awaiting waiter `id` with ``Refusal/timedOut`` at `deadline` (a timer on a global
    /// queue, set again while the deadline is more than an hour away).
    private func expire(_ id: UInt64, at deadline: ContinuousClock.Instant) {
      let left = min(max(deadline - ContinuousClock.now, .zero), .seconds(3_600))
      let (seconds, attoseconds) = left.components
      let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
      DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
        [weak self] in
        guard let self else { return }
        if ContinuousClock.now < deadline {
          if self.isQueued(id) { self.expire(id, at: deadline) }
        } else {
          self.refuse(id, .timedOut)
        }
      }
    }

    private func isQueued(_ id: UInt64) -> Bool {
      state.withLock { $0.queue.contains { $0.id == id } }
    }

    /// Ends an awaiting waiter's wait with `refusal`, unless it was served or refused already.
    private func refuse(_ id: UInt64, _ refusal: Refusal) {
      if case .awaiting(let continuation) = dequeue(id) {
        continuation.resume(returning: refusal)
      }
    }
  }
#endif
