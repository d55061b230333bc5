import Crypto
import Foundation
import PostgresNIO

/// Token buckets that every instance shares, so a client's limit does not grow with the number
/// of instances.
public protocol SharedRateLimiter: Sendable {
  /// Takes one token from `key`'s bucket under `limit`.
  ///
  /// - Throws: when the shared store cannot answer; the caller falls back to its own buckets.
  func acquire(_ key: String, limit: RateLimit) async throws -> TokenBucketRateLimiter.Decision

  /// `true` while the store is known to be failing, so callers skip it without waiting.
  func isFailing() async -> Bool
}

extension PostgresSharedStore: SharedRateLimiter {
  /// Takes one token from the bucket of `key` (stored as its SHA-256 hash, never the session id
  /// or address) in one atomic `INSERT … ON CONFLICT DO UPDATE … RETURNING` statement: the row
  /// lock serialises instances racing on the same bucket.
  ///
  /// A row also keeps how long an empty bucket takes to fill (`refill_secs`); the background
  /// sweep deletes rows idle longer than that, since a missing row is a full bucket.
  public func acquire(
    _ key: String, limit: RateLimit
  ) async throws -> TokenBucketRateLimiter.Decision {
    let hash = ByteBuffer(bytes: SHA256.hash(data: Data(key.utf8)))
    let burst = Double(limit.burst)
    let rate = limit.refillPerSecond
    let current = now()
    return try await perform("rate") {
      try await self.migrateIfNeeded()
      let rows = try await self.client.query(
        """
        INSERT INTO dex_proxy_rate AS b (bucket_key, tokens, updated_at, refill_secs, allowed)
        VALUES (\(hash), \(burst) - 1, \(current), \(burst / rate), TRUE)
        ON CONFLICT (bucket_key) DO UPDATE SET
          refill_secs = EXCLUDED.refill_secs,
          allowed = LEAST(\(burst), b.tokens + GREATEST(0, EXTRACT(EPOCH FROM
            (\(current) - b.updated_at))::float8) * \(rate)) >= 1,
          tokens = LEAST(\(burst), b.tokens + GREATEST(0, EXTRACT(EPOCH FROM
            (\(current) - b.updated_at))::float8) * \(rate))
            - CASE WHEN LEAST(\(burst), b.tokens + GREATEST(0, EXTRACT(EPOCH FROM
            (\(current) - b.updated_at))::float8) * \(rate)) >= 1 THEN 1 ELSE 0 END,
          updated_at = GREATEST(b.updated_at, \(current))
        RETURNING allowed, tokens
        """)
      var decision = TokenBucketRateLimiter.Decision.allowed
      for try await (allowed, tokens) in rows.decode((Bool, Double).self) {
        if !allowed {
          let wait = (1 - tokens) / rate
          decision = .limited(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
        }
      }
      return decision
    }
  }

  /// See ``SharedRateLimiter/isFailing()``.
  public func isFailing() async -> Bool { await state.failing }
}
