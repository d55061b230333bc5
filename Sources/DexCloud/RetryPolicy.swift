import Foundation

/// When and how long ``ApiClient`` waits before trying a request again.
///
/// Network errors, timeouts and the statuses in ``retryableStatuses`` are retried with
/// exponential backoff and jitter (each wait is drawn from the upper half of
/// `initialBackoff × 2ⁿ`, capped at `maximumBackoff`). A `Retry-After` header (seconds or an
/// HTTP date) replaces the computed wait; one longer than `maximumRetryAfter` ends the retries.
/// Attempts are bounded by ``maximumAttempts`` and the whole call, waits included, by
/// ``maximumElapsed``: the last attempt's timeout is shortened so the budget is never exceeded.
public struct RetryPolicy: Sendable, Equatable {
  /// 408, 429, 500, 502, 503 and 504.
  public static let defaultRetryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

  /// Total attempts including the first (at least 1).
  public var maximumAttempts: Int
  /// The first backoff ceiling.
  public var initialBackoff: Duration
  /// The largest computed backoff.
  public var maximumBackoff: Duration
  /// The longest `Retry-After` honoured; a longer one fails the call instead of waiting.
  public var maximumRetryAfter: Duration
  /// The budget for the whole call, all attempts and waits included.
  public var maximumElapsed: Duration
  /// The statuses worth retrying.
  public var retryableStatuses: Set<Int>

  /// Creates a policy.
  public init(
    maximumAttempts: Int = 4,
    initialBackoff: Duration = .milliseconds(500),
    maximumBackoff: Duration = .seconds(8),
    maximumRetryAfter: Duration = .seconds(60),
    maximumElapsed: Duration = .seconds(300),
    retryableStatuses: Set<Int> = RetryPolicy.defaultRetryableStatuses
  ) {
    self.maximumAttempts = max(1, maximumAttempts)
    self.initialBackoff = initialBackoff
    self.maximumBackoff = maximumBackoff
    self.maximumRetryAfter = maximumRetryAfter
    self.maximumElapsed = maximumElapsed
    self.retryableStatuses = retryableStatuses
  }

  /// Four attempts, 0.5 s doubling to 8 s, `Retry-After` up to 60 s, five minutes in all.
  public static let `default` = RetryPolicy()

  /// A single attempt.
  public static let none = RetryPolicy(maximumAttempts: 1)

  /// The jittered wait before retry number `retry` (1 for the first retry).
  public func backoff(forRetry retry: Int, unitRandom: Double) -> Duration {
    let exponent = min(max(retry - 1, 0), 30)
    let ceiling = min(
      initialBackoff.timeInterval * pow(2, Double(exponent)), maximumBackoff.timeInterval)
    let fraction = 0.5 + 0.5 * min(max(unitRandom, 0), 1)
    return .milliseconds(Int64((ceiling * fraction * 1000).rounded()))
  }
}
