import DexTestSupport
import Foundation
import Logging

@testable import DexCloud

/// Retries that never wait long: tests run in milliseconds. The budget is far (an hour): it is
/// read from the real clock, and a loaded CI run once spent over 10 s of a 30 s budget before a
/// retry was weighed, so a test's few seconds of `Retry-After` must not meet it.
let fastRetries = RetryPolicy(
  maximumAttempts: 4, initialBackoff: .milliseconds(2), maximumBackoff: .milliseconds(10),
  maximumRetryAfter: .seconds(60), maximumElapsed: .seconds(3600))

/// The typed error `body` threw, if it was a ``DexCloudError``.
func expectedError(_ body: () async throws -> Void) async -> DexCloudError? {
  await caughtError(DexCloudError.self, body)
}
