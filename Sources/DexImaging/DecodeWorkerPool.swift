#if os(Linux) && SystemImageCodecs
  import Dispatch
  import Foundation
  import Synchronization

  /// The worker processes of one ``IsolatedImageDecoder`` and its copies: at most
  /// `maximumWorkers` at once, idle ones kept for the next request, dead or suspect ones
  /// replaced.
  ///
  /// The decoding protocols are synchronous (a conformance blocks its caller as the in-process
  /// decoder does while it computes), so the shared state sits behind a `Mutex` rather than in
  /// an actor that such a call could only reach by blocking on a task; nothing blocks while
  /// holding it.
  final class DecodeWorkerPool: Sendable {
    let launch: DecodeWorker.Launch
    let maximumWorkers: Int
    /// Requests a worker answers before it is retired (its CPU-time limit covers its life).
    let requestsPerWorker: Int
    /// Who may talk to a worker now; the queue of those waiting, first in, first out.
    let slots: DecodeSlots
    private let state = Mutex(State())

    private struct State {
      var idle: [DecodeWorker] = []
      var busy: Set<pid_t> = []
      var started = 0
    }

    init(launch: DecodeWorker.Launch, maximumWorkers: Int, requestsPerWorker: Int) {
      self.launch = launch
      self.maximumWorkers = max(1, maximumWorkers)
      self.requestsPerWorker = max(1, requestsPerWorker)
      slots = DecodeSlots(count: self.maximumWorkers)
    }

    deinit {
      state.withLock { state in
        for worker in state.idle { worker.terminate() }
        state.idle = []
      }
    }

    /// Lends a worker to `body` and takes it back: kept when `body` says it is still sound,
    /// retired after ``requestsPerWorker`` answers, ended (and so replaced by the next request)
    /// when `body` fails. Blocks the calling thread, waiting for a slot included.
    func withWorker<Result>(
      until deadline: ContinuousClock.Instant, timeout: Duration,
      _ body: (DecodeWorker) throws(DecodeWorkerChannel.Failure) -> (Result, keep: Bool)
    ) throws(IsolatedDecodingFailure) -> Result {
      try acquireSlot(until: deadline, timeout: timeout)
      defer { slots.release() }
      return try lend(timeout: timeout, body)
    }

    /// ``withWorker(until:timeout:_:)`` for async callers, holding no thread of Swift's
    /// cooperative pool while it waits: it waits for a slot suspended, then talks to the worker
    /// on a dispatch queue of its own (a thread outside the pool, one per slot at most). The
    /// pool has one thread per core, so a wait on a hung worker (up to the whole ``timeout``)
    /// there would stall every other task of the host, its HTTP server's handlers included.
    /// `body`'s `isCancelled` says whether the awaiting task was cancelled.
    func withWorker<Result: Sendable>(
      until deadline: ContinuousClock.Instant, timeout: Duration,
      _ body:
        @escaping @Sendable (DecodeWorker, _ isCancelled: @escaping @Sendable () -> Bool)
        throws(DecodeWorkerChannel.Failure) -> (Result, keep: Bool)
    ) async throws(IsolatedDecodingFailure) -> Result {
      try await acquireSlotWithoutBlocking(until: deadline, timeout: timeout)
      let outcome = await awaitOffCooperativePool(
        on: DispatchQueue(label: "DexImaging.IsolatedImageDecoder.request")
      ) { isCancelled in
        let outcome = Swift.Result { () throws(IsolatedDecodingFailure) in
          if isCancelled() { throw .cancelled }
          return try self.lend(timeout: timeout) {
            (worker) throws(DecodeWorkerChannel.Failure) in try body(worker, isCancelled)
          }
        }
        // The slot is free before the caller resumes, so its next call finds it.
        self.slots.release()
        return outcome
      }
      return try outcome.get()
    }

    /// Runs `body` with a worker while the caller holds a slot.
    private func lend<Result>(
      timeout: Duration,
      _ body: (DecodeWorker) throws(DecodeWorkerChannel.Failure) -> (Result, keep: Bool)
    ) throws(IsolatedDecodingFailure) -> Result {
      var worker = try checkOut()
      let outcome: (Result, keep: Bool)
      do {
        outcome = try body(worker)
      } catch {
        state.withLock { _ = $0.busy.remove(worker.processID) }
        switch error {
        case .closed: throw worker.reapAfterClose()
        case .timedOut: worker.terminate(); throw .timedOut(after: timeout)
        case .cancelled: worker.terminate(); throw .cancelled
        case .malformed(let reason): worker.terminate(); throw .malformedReply(reason: reason)
        case .system(let code):
          worker.terminate()
          throw .malformedReply(reason: "the socket failed (\(String(cString: strerror(code))))")
        }
      }
      worker.served += 1
      checkIn(
        worker,
        keep: outcome.keep && worker.served < requestsPerWorker && !worker.hasUnreadOutput())
      return outcome.0
    }

    /// Waits for a slot, blocking the calling thread; cancellation and the deadline are seen
    /// within 50 ms.
    private func acquireSlot(
      until deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(IsolatedDecodingFailure) {
      if let refusal = slots.acquire(until: deadline, isCancelled: { Task.isCancelled }) {
        throw Self.failure(refusal, timeout: timeout)
      }
      try keepSlot(until: deadline, timeout: timeout, cancelled: Task.isCancelled)
    }

    /// Gives a slot won too late back: a call past its deadline, or cancelled, never reaches a
    /// worker (its first wait would end it, and with it a sound worker).
    private func keepSlot(
      until deadline: ContinuousClock.Instant, timeout: Duration, cancelled: Bool
    ) throws(IsolatedDecodingFailure) {
      if cancelled {
        slots.release()
        throw .cancelled
      }
      if ContinuousClock.now >= deadline {
        slots.release()
        throw .timedOut(after: timeout)
      }
    }

    /// Waits for a slot suspended, so that a queue of callers holds no thread; cancellation
    /// ends the wait at once.
    private func acquireSlotWithoutBlocking(
      until deadline: ContinuousClock.Instant, timeout: Duration
    ) async throws(IsolatedDecodingFailure) {
      if let refusal = await slots.acquire(until: deadline) {
        throw Self.failure(refusal, timeout: timeout)
      }
      try keepSlot(until: deadline, timeout: timeout, cancelled: Task.isCancelled)
    }

    private static func failure(
      _ refusal: DecodeSlots.Refusal, timeout: Duration
    ) -> IsolatedDecodingFailure {
      switch refusal {
      case .cancelled: .cancelled
      case .timedOut: .timedOut(after: timeout)
      }
    }

    private func checkOut() throws(IsolatedDecodingFailure) -> DecodeWorker {
      while let worker = state.withLock({ $0.idle.popLast() }) {
        if worker.isRunning() {
          state.withLock { _ = $0.busy.insert(worker.processID) }
          return worker
        }
        worker.terminate()  // died while idle (killed from outside): replaced
      }
      let worker = try DecodeWorker.start(launch)
      state.withLock {
        $0.started += 1
        $0.busy.insert(worker.processID)
      }
      return worker
    }

    private func checkIn(_ worker: DecodeWorker, keep: Bool) {
      state.withLock { _ = $0.busy.remove(worker.processID) }
      if keep {
        state.withLock { $0.idle.append(worker) }
      } else {
        worker.terminate()
      }
    }

    /// The workers decoding right now (for tests).
    var busyProcessIDs: Set<pid_t> { state.withLock { $0.busy } }
    /// How many workers were started so far (for tests).
    var startedCount: Int { state.withLock { $0.started } }
  }
#endif
