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

  @Test func tableStaysBoundedWhenFull() async {
    let limiter = TokenBucketRateLimiter(
      limit: RateLimit(burst: 1, refillPerSecond: 0.001), maximumClients: 2)
    #expect(await limiter.acquire("a") == .allowed)
    #expect(await limiter.acquire("b") == .allowed)
    // A third client resets the full table rather than growing it.
    #expect(await limiter.acquire("c") == .allowed)
    #expect(await limiter.acquire("a") == .allowed)
  }

  @Test func invalidLimitsAreClamped() {
    let limit = RateLimit(burst: 0, refillPerSecond: -3)
    #expect(limit.burst == 1)
    #expect(limit.refillPerSecond == 1)
  }
}
