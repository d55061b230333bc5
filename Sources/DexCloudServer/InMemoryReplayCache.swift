import DexCloud
import Foundation

/// A bounded, in-process ``ReplayCache``.
///
/// Entries live until their expiry (the end of the timestamp window); expired entries are
/// pruned when room is needed. When the cache holds `capacity` live entries it refuses new ones
/// with ``RequestVerificationError/replayCacheFull`` rather than forgetting a live signature,
/// because forgetting one would let it be replayed. Only requests that already passed the
/// signature check are recorded, so only authenticated clients can fill it.
///
/// Entries are grouped by the second they expire in, so pruning drops whole expired groups: its
/// cost is the number of entries that go, not the number held (a full cache refusing a flood
/// does no scan per request).
public actor InMemoryReplayCache: ReplayCache {
  /// The maximum number of live entries.
  public let capacity: Int
  private var expiries: [String: Date] = [:]
  /// Signatures by the Unix second their expiry falls in (rounded up).
  private var expiringIn: [Int64: [String]] = [:]
  /// The earliest second in `expiringIn`, so that a prune with nothing to drop costs nothing.
  private var earliestExpiry = Int64.max
  private let now: @Sendable () -> Date

  /// Creates a cache holding at most `capacity` live signatures (default 100 000, about 10 MB).
  public init(capacity: Int = 100_000, now: @escaping @Sendable () -> Date = { Date() }) {
    self.capacity = max(1, capacity)
    self.now = now
  }

  /// The number of entries currently held (live or not yet pruned).
  public var count: Int { expiries.count }

  /// See ``ReplayCache/insertIfAbsent(_:expiresAt:)``.
  public func insertIfAbsent(_ signature: String, expiresAt: Date) async throws -> Bool {
    let current = now()
    if let existing = expiries[signature], existing > current { return false }
    if expiries.count >= capacity { prune(before: current) }
    guard expiries.count < capacity else { throw RequestVerificationError.replayCacheFull }
    expiries[signature] = expiresAt
    let second = Self.second(expiresAt)
    expiringIn[second, default: []].append(signature)
    earliestExpiry = min(earliestExpiry, second)
    return true
  }

  /// Drops every entry whose expiry has passed: the groups of the seconds before `date`, and
  /// from the group of `date`'s own second the entries already expired.
  private func prune(before date: Date) {
    let limit = Self.second(date)
    guard earliestExpiry <= limit else { return }
    for second in expiringIn.keys where second <= limit {
      var kept: [String] = []
      for signature in expiringIn[second] ?? [] {
        // A signature re-inserted after expiring sits in two groups; only its current
        // expiry decides.
        guard let expiry = expiries[signature] else { continue }
        if expiry > date {
          if Self.second(expiry) == second { kept.append(signature) }
        } else {
          expiries[signature] = nil
        }
      }
      expiringIn[second] = kept.isEmpty ? nil : kept
    }
    earliestExpiry = expiringIn.keys.min() ?? .max
  }

  /// The Unix second `date` falls in, rounded up (so an entry is never in a group that ends
  /// before it expires).
  private static func second(_ date: Date) -> Int64 {
    let seconds = date.timeIntervalSince1970.rounded(.up)
    guard seconds.isFinite else { return seconds > 0 ? .max : .min }
    return Int64(max(min(seconds, 9e18), -9e18))
  }
}
