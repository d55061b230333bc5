import NIOConcurrencyHelpers

/// The cap on requests one instance works on at once (`DEX_PROXY_MAX_IN_FLIGHT`), on those of
/// one client address (`DEX_PROXY_MAX_IN_FLIGHT_PER_ADDRESS`, an IPv6 address by its /64), on
/// those of one session (`DEX_PROXY_MAX_IN_FLIGHT_PER_SESSION`), and on the request body bytes
/// they may buffer together (`DEX_PROXY_MAX_BODY_BYTES_IN_FLIGHT`): past any of them,
/// `/auth_token` and `/vision` answer 503 `busy` with `Retry-After` at once instead of queueing
/// work (and memory, and upstream connections) without bound.
///
/// Each cap closes one way to hold every slot: one address that trickles its bodies meets its
/// own cap, one session spread over many addresses meets the session's, and bodies declared
/// large (or sent without a length, counted as the largest allowed) meet the byte budget before
/// a byte of them is buffered.
struct InFlightLimit: Sendable {
  /// The most requests admitted at once.
  let maximum: Int
  /// The most requests of one address admitted at once.
  let maximumPerAddress: Int
  /// The most requests of one session admitted at once (requests without a session, such as
  /// `/auth_token`'s, are not counted against any).
  let maximumPerSession: Int
  /// The most body bytes the admitted requests may declare together.
  let maximumBytes: Int

  private struct Counts {
    var total = 0
    var bytes = 0
    var byAddress: [String: Int] = [:]
    var bySession: [String: Int] = [:]
  }
  private let counts = NIOLockedValueBox(Counts())

  init(
    maximum: Int, maximumPerAddress: Int = 8, maximumPerSession: Int = .max,
    maximumBytes: Int = .max
  ) {
    self.maximum = max(1, maximum)
    self.maximumPerAddress = max(1, maximumPerAddress)
    self.maximumPerSession = max(1, maximumPerSession)
    self.maximumBytes = max(1, maximumBytes)
  }

  /// One admitted request: what ``leave(_:)`` gives back.
  struct Entry: Sendable {
    fileprivate let address: String
    fileprivate let session: String?
    fileprivate let bytes: Int
  }

  /// Admits one more request of `address` (and of `session`, if it has one) that will buffer at
  /// most `bytes` of body, if every cap has room for it; `nil` when one has not.
  func enter(address: String, session: String? = nil, bytes: Int = 0) -> Entry? {
    let bytes = max(0, bytes)
    return counts.withLockedValue { counts -> Entry? in
      let mine = counts.byAddress[address, default: 0]
      let sessions = session.map { counts.bySession[$0, default: 0] } ?? 0
      guard counts.total < maximum, mine < maximumPerAddress, sessions < maximumPerSession,
        bytes <= maximumBytes - counts.bytes
      else { return nil }
      counts.total += 1
      counts.bytes += bytes
      counts.byAddress[address] = mine + 1
      if let session { counts.bySession[session] = sessions + 1 }
      return Entry(address: address, session: session, bytes: bytes)
    }
  }

  /// Ends one admitted request.
  func leave(_ entry: Entry) {
    counts.withLockedValue { counts in
      counts.total = max(0, counts.total - 1)
      counts.bytes = max(0, counts.bytes - entry.bytes)
      let mine = counts.byAddress[entry.address, default: 0] - 1
      counts.byAddress[entry.address] = mine > 0 ? mine : nil
      if let session = entry.session {
        let sessions = counts.bySession[session, default: 0] - 1
        counts.bySession[session] = sessions > 0 ? sessions : nil
      }
    }
  }
}
