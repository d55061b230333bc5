/// Lets at most `width` pieces of work run at once; the others wait, first come first served.
///
/// It exists so that a burst of requests (a page prefetching, many swipes up) queues instead of
/// decoding dozens of photos at once: memory and CPU stay bounded by the width.
actor ConcurrencyLimiter {
  /// How many may run at once (at least 1).
  let width: Int
  private var running = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []
  /// The most that ever ran at once (for tests and statistics).
  private(set) var peak = 0

  init(width: Int) {
    self.width = max(1, width)
  }

  /// Runs `work` once fewer than `width` others run.
  func run<T: Sendable>(
    _ work: @Sendable () async throws(PixScanError) -> T
  ) async throws(PixScanError) -> T {
    if running < width {
      running += 1
    } else {
      // Handed a slot by `release` (running stays counted).
      await withCheckedContinuation { waiters.append($0) }
    }
    peak = max(peak, running)
    defer { release() }
    return try await work()
  }

  private func release() {
    if waiters.isEmpty {
      running -= 1
    } else {
      waiters.removeFirst().resume()
    }
  }
}
