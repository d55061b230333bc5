import NIOConcurrencyHelpers

/// The cap on requests one instance works on at once (`DEX_PROXY_MAX_IN_FLIGHT`): past it,
/// `/auth_token` and `/vision` answer 503 `busy` with `Retry-After` at once instead of queueing
/// work (and memory, and upstream connections) without bound.
struct InFlightLimit: Sendable {
  /// The most requests admitted at once.
  let maximum: Int
  private let count = NIOLockedValueBox(0)

  init(maximum: Int) {
    self.maximum = max(1, maximum)
  }

  /// Admits one more request if fewer than ``maximum`` are in flight.
  func enter() -> Bool {
    count.withLockedValue { value in
      guard value < maximum else { return false }
      value += 1
      return true
    }
  }

  /// Ends one admitted request.
  func leave() {
    count.withLockedValue { $0 = max(0, $0 - 1) }
  }
}
