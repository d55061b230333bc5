/// `/health`'s view of the shared store: at most one probe per ``interval`` per instance,
/// whatever the number of callers (the endpoint needs no signature, so without this every
/// anonymous call would cost a database round trip). Concurrent callers share the probe in
/// flight.
actor HealthProbe {
  private let store: any SharedReplayStore
  /// How long an answer is reused (one second).
  let interval: Duration
  private let clock = ContinuousClock()
  private var answer: (available: Bool, at: ContinuousClock.Instant)?
  private var probe: Task<Bool, Never>?

  init(store: any SharedReplayStore, interval: Duration = .seconds(1)) {
    self.store = store
    self.interval = interval
  }

  /// Whether the store answered its last probe, probing again when that is over ``interval``
  /// old.
  func isAvailable() async -> Bool {
    if let answer, clock.now - answer.at < interval { return answer.available }
    if let probe { return await probe.value }
    let store = self.store
    let task = Task { await store.isAvailable() }
    probe = task
    let available = await task.value
    answer = (available, clock.now)
    probe = nil
    return available
  }
}
