import DexCloud
import Foundation

/// A bounded, in-process ``ReplayCache``.
///
/// Entries live until their expiry (the end of the timestamp window); expired entries are
/// pruned when room is needed. When the cache holds `capacity` live entries it refuses new ones
/// with ``RequestVerificationError/replayCacheFull`` rather than forgetting a live signature,
/// because forgetting one would let it be replayed. Only requests that already passed the
/// signature check are recorded, so only authenticated clients can fill it.
public actor InMemoryReplayCache: ReplayCache {
  /// The maximum number of live entries.
  public let capacity: Int
  private var expiries: [String: Date] = [:]
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
    return true
  }

  /// Drops every entry whose expiry has passed.
  private func prune(before date: Date) {
    expiries = expiries.filter { $0.value > date }
  }
}
