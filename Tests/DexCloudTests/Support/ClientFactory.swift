import DexTestSupport
import Foundation
import Logging

@testable import DexCloud

/// Retries that never wait long: tests run in milliseconds.
let fastRetries = RetryPolicy(
  maximumAttempts: 4, initialBackoff: .milliseconds(2), maximumBackoff: .milliseconds(10),
  maximumRetryAfter: .seconds(60), maximumElapsed: .seconds(30))

/// The typed error `body` threw, if it was a ``DexCloudError``.
func expectedError(_ body: () async throws -> Void) async -> DexCloudError? {
  await caughtError(DexCloudError.self, body)
}
