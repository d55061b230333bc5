#if os(Linux) && Tesseract
  import DexImaging

  /// Lends initialised Tesseract handles, at most ``maximumEnginesPerKey`` per data directory and
  /// language list, and keeps a few idle ones so that a second photo does not pay for loading the
  /// language data again.
  ///
  /// A call that finds every engine of its key busy waits in a first-in, first-out queue; a
  /// cancelled waiter leaves the queue and throws `CancellationError`. Engines whose caller gave
  /// up (timeout, cancellation) stay checked out until Tesseract really returns, so they count
  /// against the cap too: the cap bounds live engines, abandoned ones included.
  ///
  /// Shared by every copy of a ``TesseractTextRecognizer``; an actor because the idle lists, the
  /// counts and the queues are shared mutable state.
  actor TesseractEnginePool {
    /// Makes one engine; injectable so that tests can hold an Init back.
    typealias Factory =
      @Sendable (TesseractEngineKey) async throws(TextRecognitionError) ->
      TesseractEngine

    /// How many engines may exist at once per key (idle, busy, loading or abandoned).
    let maximumEnginesPerKey: Int
    /// How many idle engines are kept per data directory and language list; further ones are
    /// ended when returned (each holds its language data, tens of megabytes).
    let maxIdlePerKey: Int
    private let factory: Factory
    private var idle: [TesseractEngineKey: [TesseractEngine]] = [:]
    private var live: [TesseractEngineKey: Int] = [:]
    /// Waiters per key, oldest first; resumed with an engine, or with `nil` meaning "the slot of
    /// an engine that failed to load is yours: make one".
    private var waiters: [TesseractEngineKey: [(id: UInt64, continuation: Waiter)]] = [:]
    private var nextWaiterID: UInt64 = 0
    private typealias Waiter = CheckedContinuation<TesseractEngine?, any Error>

    /// The most engines that existed at once for any key (for tests).
    private(set) var peakLiveCount = 0
    /// How many engines were made (for tests).
    private(set) var createdCount = 0
    /// The waiters served, by arrival number, in the order served (for tests; the last 64).
    private(set) var servedWaiters: [UInt64] = []

    init(
      maximumEnginesPerKey: Int, maxIdlePerKey: Int = 2,
      factory: @escaping Factory = { key throws(TextRecognitionError) in
        try await TesseractEngine.make(key: key)
      }
    ) {
      self.maximumEnginesPerKey = max(1, maximumEnginesPerKey)
      self.maxIdlePerKey = max(0, maxIdlePerKey)
      self.factory = factory
    }

    /// An idle engine for `key`, or a new one when fewer than the cap exist, or the next one
    /// returned after waiting in line.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting, or the factory's
    ///   ``/DexImaging/TextRecognitionError``.
    func checkOut(_ key: TesseractEngineKey) async throws -> TesseractEngine {
      if var engines = idle[key], let engine = engines.popLast() {
        idle[key] = engines
        return engine
      }
      if live[key, default: 0] < maximumEnginesPerKey {
        live[key, default: 0] += 1
        peakLiveCount = max(peakLiveCount, live.values.max() ?? 0)
        return try await make(key)
      }
      let id = nextWaiterID
      nextWaiterID += 1
      let handed = try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: Waiter) in
          if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            waiters[key, default: []].append((id, continuation))
          }
        }
      } onCancel: {
        Task { await self.cancelWaiter(id, key: key) }
      }
      if let handed { return handed }
      return try await make(key)
    }

    /// Makes an engine in a slot already counted in `live`; the slot is given back if that fails.
    private func make(_ key: TesseractEngineKey) async throws -> TesseractEngine {
      do {
        let engine = try await factory(key)
        createdCount += 1
        return engine
      } catch {
        release(key)
        throw error
      }
    }

    /// Takes `engine` back: the oldest waiter gets it, else it is kept idle or ended.
    func checkIn(_ engine: TesseractEngine) {
      let key = engine.key
      if let waiter = nextWaiter(for: key) {
        waiter.resume(returning: engine)
        return
      }
      var engines = idle[key, default: []]
      guard engines.count < maxIdlePerKey else {
        live[key, default: 1] -= 1
        return
      }
      engines.append(engine)
      idle[key] = engines
    }

    /// Frees the slot of an engine that was never made: the oldest waiter inherits the slot and
    /// makes one.
    private func release(_ key: TesseractEngineKey) {
      if let waiter = nextWaiter(for: key) {
        waiter.resume(returning: nil)
      } else {
        live[key, default: 1] -= 1
      }
    }

    /// Takes the oldest waiter for `key` out of the queue, noting it as served.
    private func nextWaiter(for key: TesseractEngineKey) -> Waiter? {
      guard var queue = waiters[key], !queue.isEmpty else { return nil }
      let waiter = queue.removeFirst()
      waiters[key] = queue
      servedWaiters.append(waiter.id)
      if servedWaiters.count > 64 { servedWaiters.removeFirst() }
      return waiter.continuation
    }

    private func cancelWaiter(_ id: UInt64, key: TesseractEngineKey) {
      guard var queue = waiters[key], let index = queue.firstIndex(where: { $0.id == id }) else {
        return
      }
      let waiter = queue.remove(at: index)
      waiters[key] = queue
      waiter.continuation.resume(throwing: CancellationError())
    }

    /// How many engines are idle (for tests).
    var idleCount: Int { idle.values.reduce(0) { $0 + $1.count } }
    /// How many engines exist (idle, busy, loading or abandoned) over all keys (for tests).
    var liveCount: Int { live.values.reduce(0, +) }
    /// How many calls wait for an engine (for tests).
    var waiterCount: Int { waiters.values.reduce(0) { $0 + $1.count } }
  }
#endif
