import Foundation

/// Per-client token buckets, keyed by a validated session id or the remote address.
///
/// Memory is bounded: at most `maximumClients` buckets are kept; when full, buckets that have
/// refilled completely (idle clients) are dropped first, and if none has, the whole table is
/// reset rather than growing.
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
  private var buckets: [String: (tokens: Double, updated: ContinuousClock.Instant)] = [:]
  private let clock = ContinuousClock()

  /// Creates a limiter.
  public init(limit: RateLimit, maximumClients: Int = 10_000) {
    self.limit = limit
    self.maximumClients = max(1, maximumClients)
  }

  /// Takes one token from `key`'s bucket if there is one.
  public func acquire(_ key: String) -> Decision {
    let now = clock.now
    let capacity = Double(limit.burst)
    var tokens = capacity
    if let bucket = buckets[key] {
      let elapsed = (now - bucket.updated).timeInterval
      tokens = min(capacity, bucket.tokens + elapsed * limit.refillPerSecond)
    } else if buckets.count >= maximumClients {
      evictIdle(now: now)
    }
    guard tokens >= 1 else {
      buckets[key] = (tokens, now)
      let wait = (1 - tokens) / limit.refillPerSecond
      return .limited(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
    }
    buckets[key] = (tokens - 1, now)
    return .allowed
  }

  private func evictIdle(now: ContinuousClock.Instant) {
    let full = Double(limit.burst)
    buckets = buckets.filter { _, bucket in
      bucket.tokens + (now - bucket.updated).timeInterval * limit.refillPerSecond < full
    }
    if buckets.count >= maximumClients { buckets.removeAll(keepingCapacity: true) }
  }
}

extension Duration {
  /// The duration in seconds, as a `Double`.
  var timeInterval: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
