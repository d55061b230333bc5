/// The per-client token bucket: `burst` requests at once, refilled at `refillPerSecond`.
public struct RateLimit: Sendable, Equatable {
  /// The bucket size: how many requests a client may make back to back.
  public var burst: Int
  /// Tokens added per second (sustained requests per second).
  public var refillPerSecond: Double

  /// Creates a limit; `burst` is at least 1 and the refill rate is positive.
  public init(burst: Int, refillPerSecond: Double) {
    self.burst = max(1, burst)
    self.refillPerSecond = refillPerSecond > 0 ? refillPerSecond : 1
  }

  /// 20 requests at once, then one every 2 seconds per client.
  public static let `default` = RateLimit(burst: 20, refillPerSecond: 0.5)
}
