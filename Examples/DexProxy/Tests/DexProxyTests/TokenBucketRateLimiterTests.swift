import DexProxy
import Testing

/// The token bucket on its own: burst, refusal with a retry delay, refill, separate keys.
@Suite struct TokenBucketRateLimiterTests {
  @Test func burstThenRefusalWithRetryAfter() async {
    // One token takes 1 000 s to come back at 0.001/s: a loaded CI run can pause a task for
    // over 10 s, and at 0.25/s (4 s) such a pause refilled the bucket before the third call.
    let limiter = TokenBucketRateLimiter(limit: RateLimit(burst: 2, refillPerSecond: 0.001))
    let started = ContinuousClock.now
    #expect(await limiter.acquire("a") == .allowed)
    #expect(await limiter.acquire("a") == .allowed)
    // The wait asked for is the 1 000 s less what has passed since.
    let decision = await limiter.acquire("a")
    #expect(Self.isLimited(decision, owing: 1000, since: started), "\(decision)")
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
    let started = ContinuousClock.now
    #expect(await limiter.acquire("a") == .allowed)
    #expect(await limiter.acquire("b") == .allowed)
    let newcomer = await limiter.acquire("c")
    #expect(Self.isLimited(newcomer, owing: 1000, since: started), "\(newcomer)")
    let again = await limiter.acquire("a")
    #expect(Self.isLimited(again, owing: 1000, since: started), "\(again)")
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

  /// Whether `decision` refuses with the `Retry-After` of a bucket that owed `seconds` when it
  /// was drained, at or after `started`: `seconds` when the calls came within a second, down
  /// to what is left of them after a pause (a loaded machine may pause between two calls).
  static func isLimited(
    _ decision: TokenBucketRateLimiter.Decision, owing seconds: Int,
    since started: ContinuousClock.Instant
  ) -> Bool {
    guard case .limited(let retryAfter) = decision else { return false }
    let passed = ContinuousClock.now - started
    let elapsed = Double(passed.components.seconds) + Double(passed.components.attoseconds) / 1e18
    let least = max(1, (Double(seconds) - elapsed).rounded(.up))
    return retryAfter <= seconds && Double(retryAfter) >= least
  }

  @Test func invalidLimitsAreClamped() {
    let limit = RateLimit(burst: 0, refillPerSecond: -3)
    #expect(limit.burst == 1)
    #expect(limit.refillPerSecond == 1)
  }
}
