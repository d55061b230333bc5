import NIOConcurrencyHelpers

/// The cap on requests one instance works on at once (`DEX_PROXY_MAX_IN_FLIGHT`), on those of
/// one client address (`DEX_PROXY_MAX_IN_FLIGHT_PER_ADDRESS`, an IPv6 address by its /64), on
/// the request body bytes they may declare together (`DEX_PROXY_MAX_BODY_BYTES_IN_FLIGHT`, and
/// an address's share of it), and on the calls of one session (`DEX_PROXY_MAX_IN_FLIGHT_PER_SESSION`):
/// past any of them, `/auth_token` and `/vision` answer 503 `busy` with `Retry-After` at once
/// instead of queueing work (and memory, and upstream connections) without bound.
///
/// Each cap closes one way to hold every slot or all the memory: one address that trickles its
/// bodies meets its own cap and its share of the bytes, bodies declared large (or sent without a
/// length, counted as the largest allowed) meet the byte budget before a byte of them is
/// buffered, and one session whose signed calls come from many addresses meets the session's
/// cap. A session is counted only once its request's signature has verified (``enterSession(_:)``):
/// its id is public, and a count taken on the id alone would let anyone who saw it lock the
/// session out.
struct InFlightLimit: Sendable {
  /// The most requests admitted at once.
  let maximum: Int
  /// The most requests of one address admitted at once.
  let maximumPerAddress: Int
  /// The most verified calls of one session worked on at once.
  let maximumPerSession: Int
  /// The most body bytes the admitted requests may declare together.
  let maximumBytes: Int
  /// The most body bytes one address's admitted requests may declare together: its share of
  /// ``maximumBytes`` by ``maximumPerAddress`` of ``maximum`` slots, and at least one largest
  /// body, so that exhausting the bytes takes as many addresses as exhausting the slots.
  let maximumBytesPerAddress: Int

  private struct Counts {
    var total = 0
    var bytes = 0
    var byAddress: [String: (requests: Int, bytes: Int)] = [:]
    var bySession: [String: Int] = [:]
  }
  private let counts = NIOLockedValueBox(Counts())

  init(
    maximum: Int, maximumPerAddress: Int = 8, maximumPerSession: Int = .max,
    maximumBytes: Int = .max, largestBody: Int = 0
  ) {
    self.maximum = max(1, maximum)
    self.maximumPerAddress = max(1, maximumPerAddress)
    self.maximumPerSession = max(1, maximumPerSession)
    self.maximumBytes = max(1, maximumBytes, largestBody)
    let (share, overflow) = (self.maximumBytes / self.maximum).multipliedReportingOverflow(
      by: self.maximumPerAddress)
    self.maximumBytesPerAddress = max(
      largestBody, overflow ? self.maximumBytes : min(share, self.maximumBytes), 1)
  }

  /// One admitted request: what ``leave(_:)`` gives back.
  struct Entry: Sendable {
    fileprivate let address: String
    fileprivate let bytes: Int
  }

  /// Admits one more request of `address` that will buffer at most `bytes` of body, if every
  /// cap has room for it; `nil` when one has not.
  func enter(address: String, bytes: Int = 0) -> Entry? {
    let bytes = max(0, bytes)
    return counts.withLockedValue { counts -> Entry? in
      let mine = counts.byAddress[address, default: (0, 0)]
      guard counts.total < maximum, mine.requests < maximumPerAddress,
        bytes <= maximumBytes - counts.bytes, bytes <= maximumBytesPerAddress - mine.bytes
      else { return nil }
      counts.total += 1
      counts.bytes += bytes
      counts.byAddress[address] = (mine.requests + 1, mine.bytes + bytes)
      return Entry(address: address, bytes: bytes)
    }
  }

  /// Ends one admitted request.
  func leave(_ entry: Entry) {
    counts.withLockedValue { counts in
      counts.total = max(0, counts.total - 1)
      counts.bytes = max(0, counts.bytes - entry.bytes)
      let mine = counts.byAddress[entry.address, default: (0, 0)]
      let left = (requests: mine.requests - 1, bytes: max(0, mine.bytes - entry.bytes))
      counts.byAddress[entry.address] = left.requests > 0 ? left : nil
    }
  }

  /// Counts one more verified call of `session`, if fewer than ``maximumPerSession`` are
  /// worked on; `false` when the session is at its cap. Each `true` is ended by
  /// ``leaveSession(_:)``.
  func enterSession(_ session: String) -> Bool {
    counts.withLockedValue { counts in
      let calls = counts.bySession[session, default: 0]
      guard calls < maximumPerSession else { return false }
      counts.bySession[session] = calls + 1
      return true
    }
  }

  /// Ends one verified call of `session`.
  func leaveSession(_ session: String) {
    counts.withLockedValue { counts in
      let calls = counts.bySession[session, default: 0] - 1
      counts.bySession[session] = calls > 0 ? calls : nil
    }
  }
}
