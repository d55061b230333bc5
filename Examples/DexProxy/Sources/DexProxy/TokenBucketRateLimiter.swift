import Foundation
import HeapModule

/// Per-client token buckets, keyed by a validated session id or the client's address.
///
/// Memory is bounded without giving anyone a way to reset it: at most ``maximumClients`` buckets
/// are kept, and a new client at capacity takes the place of a bucket that has refilled
/// completely (the one full the longest first), which forgets nothing since a full bucket is
/// what a new client gets anyway. When every bucket still owes tokens, the new client is refused
/// (``Decision/limited(retryAfterSeconds:)`` until the first bucket is full again) rather than
/// any bucket being forgotten: sending from 10 000 fresh addresses cannot give a drained bucket
/// back.
public actor TokenBucketRateLimiter {
  /// What the limiter decided for one request.
  public enum Decision: Sendable, Equatable {
    /// The request may proceed.
    case allowed
    /// The client is over its limit; retry after this many whole seconds (at least 1).
    case limited(retryAfterSeconds: Int)
  }

  /// The limit applied to every client.
  public let limit: RateLimit
  /// The most buckets kept at once.
  public let maximumClients: Int
  private struct Bucket {
    var tokens: Double
    var updated: ContinuousClock.Instant
    var generation: UInt64
  }
  /// When a bucket will be full again; entries for buckets touched since are stale and skipped.
  private struct Refill: Comparable {
    var fullAt: ContinuousClock.Instant
    var key: String
    var generation: UInt64
    static func < (lhs: Refill, rhs: Refill) -> Bool { lhs.fullAt < rhs.fullAt }
    static func == (lhs: Refill, rhs: Refill) -> Bool {
      lhs.fullAt == rhs.fullAt && lhs.generation == rhs.generation
    }
  }
  private var buckets: [String: Bucket] = [:]
  private var refills = Heap<Refill>()
  private var generation: UInt64 = 0
  private let clock = ContinuousClock()

  /// Creates a limiter.
  public init(limit: RateLimit, maximumClients: Int = 10_000) {
    self.limit = limit
    self.maximumClients = max(1, maximumClients)
  }

  /// How many buckets are held now (at most ``maximumClients``).
  public var count: Int { buckets.count }

  /// Takes one token from `key`'s bucket if there is one.
  public func acquire(_ key: String) -> Decision {
    let now = clock.now
    let capacity = Double(limit.burst)
    var tokens = capacity
    if let bucket = buckets[key] {
      let elapsed = (now - bucket.updated).timeInterval
      tokens = min(capacity, bucket.tokens + elapsed * limit.refillPerSecond)
    } else if buckets.count >= maximumClients, !evictOneFull(now: now) {
      return .limited(retryAfterSeconds: secondsUntilOneIsFull(now: now))
    }
    let decision: Decision
    if tokens >= 1 {
      tokens -= 1
      decision = .allowed
    } else {
      let wait = (1 - tokens) / limit.refillPerSecond
      decision = .limited(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
    }
    store(key, tokens: tokens, now: now)
    return decision
  }

  private func store(_ key: String, tokens: Double, now: ContinuousClock.Instant) {
    generation &+= 1
    buckets[key] = Bucket(tokens: tokens, updated: now, generation: generation)
    let missing = (Double(limit.burst) - tokens) / limit.refillPerSecond
    refills.insert(
      Refill(fullAt: now + .seconds(missing), key: key, generation: generation))
    // Stale entries pile up for busy keys: rebuild from the live buckets now and then (O(n),
    // at most once per n requests).
    if refills.count > 4 * max(buckets.count, 256) {
      refills = Heap(
        buckets.map { key, bucket in
          Refill(
            fullAt: bucket.updated
              + .seconds((Double(limit.burst) - bucket.tokens) / limit.refillPerSecond),
            key: key, generation: bucket.generation)
        })
    }
  }

  /// Removes the bucket that has been full the longest, if one is full now.
  private func evictOneFull(now: ContinuousClock.Instant) -> Bool {
    while let first = refills.min, first.fullAt <= now {
      refills.removeMin()
      if buckets[first.key]?.generation == first.generation {
        buckets[first.key] = nil
        return true
      }
    }
    return false
  }

  private func secondsUntilOneIsFull(now: ContinuousClock.Instant) -> Int {
    while let first = refills.min, buckets[first.key]?.generation != first.generation {
      refills.removeMin()
    }
    guard let first = refills.min else { return 1 }
    return max(1, Int((first.fullAt - now).timeInterval.rounded(.up)))
  }
}

extension Duration {
  /// The duration in seconds, as a `Double`.
  var timeInterval: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
