import NIOConcurrencyHelpers

/// The cap on requests one instance works on at once (`DEX_PROXY_MAX_IN_FLIGHT`), and on those
/// of one client address (`DEX_PROXY_MAX_IN_FLIGHT_PER_ADDRESS`, an IPv6 address by its /64):
/// past either, `/auth_token` and `/vision` answer 503 `busy` with `Retry-After` at once instead
/// of queueing work (and memory, and upstream connections) without bound, and one address that
/// trickles its bodies cannot hold every slot.
struct InFlightLimit: Sendable {
  /// The most requests admitted at once.
  let maximum: Int
  /// The most requests of one address admitted at once.
  let maximumPerAddress: Int
  private let counts = NIOLockedValueBox((total: 0, byAddress: [String: Int]()))

  init(maximum: Int, maximumPerAddress: Int = 8) {
    self.maximum = max(1, maximum)
    self.maximumPerAddress = max(1, maximumPerAddress)
  }

  /// Admits one more request of `address` if fewer than ``maximum`` are in flight, and fewer
  /// than ``maximumPerAddress`` of that address.
  func enter(address: String) -> Bool {
    counts.withLockedValue { counts in
      let mine = counts.byAddress[address, default: 0]
      guard counts.total < maximum, mine < maximumPerAddress else { return false }
      counts.total += 1
      counts.byAddress[address] = mine + 1
      return true
    }
  }

  /// Ends one admitted request of `address`.
  func leave(address: String) {
    counts.withLockedValue { counts in
      counts.total = max(0, counts.total - 1)
      let mine = counts.byAddress[address, default: 0] - 1
      counts.byAddress[address] = mine > 0 ? mine : nil
    }
  }
}
