import DexProxy
import Testing

/// The token bucket on its own: burst, refusal with a retry delay, refill, separate keys.
@Suite struct TokenBucketRateLimiterTests {
  @Test func burstThenRefusalWithRetryAfter() async {
    let limiter = TokenBucketRateLimiter(limit: RateLimit(burst: 2, refillPerSecond: 0.25))
    #expect(await limiter.acquire("a") == .allowed)
    #expect(await limiter.acquire("a") == .allowed)
    // One token takes 4 s to come back at 0.25/s.
    #expect(await limiter.acquire("a") == .limited(retryAfterSeconds: 4))
    #expect(await limiter.acquire("b") == .allowed)
  }

  @Test func tokensComeBack() async throws {
    let limiter = TokenBucketRateLimiter(limit: RateLimit(burst: 1, refillPerSecond: 200))
    #expect(await limiter.acquire("a") == .allowed)
    try await Task.sleep(for: .milliseconds(50))  // 10 tokens' worth, capped at the burst of 1
    #expect(await limiter.acquire("a") == .allowed)
  }

  /// At capacity with every bucket still owing tokens, a new client is refused and nobody is
  /// forgotten: the drained buckets stay drained.
  @Test func aFullTableRefusesNewcomersInsteadOfForgetting() async {
    let limiter = TokenBucketRateLimiter(
      limit: RateLimit(burst: 1, refillPerSecond: 0.001), maximumClients: 2)
    #expect(await limiter.acquire("a") == .allowed)
    #expect(await limiter.acquire("b") == .allowed)
    #expect(await limiter.acquire("c") == .limited(retryAfterSeconds: 1000))
    #expect(await limiter.acquire("a") == .limited(retryAfterSeconds: 1000))
    #expect(await limiter.count == 2)
  }

  /// A bucket that has refilled completely makes room for a newcomer (the one full the longest
  /// goes first); the table never grows past its bound.
  @Test func aFullBucketMakesRoomForANewcomer() async throws {
    let limiter = TokenBucketRateLimiter(
      limit: RateLimit(burst: 1, refillPerSecond: 100), maximumClients: 2)
    #expect(await limiter.acquire("a") == .allowed)
    try await Task.sleep(for: .milliseconds(30))  // a is full again (10 ms per token)
    #expect(await limiter.acquire("b") == .allowed)
    #expect(await limiter.acquire("c") == .allowed)  // takes a's place
    #expect(await limiter.count == 2)
  }

  @Test func invalidLimitsAreClamped() {
    let limit = RateLimit(burst: 0, refillPerSecond: -3)
    #expect(limit.burst == 1)
    #expect(limit.refillPerSecond == 1)
  }
}
