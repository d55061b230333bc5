import DexExamplesTestSupport
import Foundation
import Logging

@testable import DexCloud

/// Retries that never wait long: tests run in milliseconds. The budget is far (an hour): it is
/// read from the real clock, and a loaded CI run once spent over 10 s of a 30 s budget before a
/// retry was weighed, so a test's few seconds of `Retry-After` must not meet it.
let fastRetries = RetryPolicy(
  maximumAttempts: 4, initialBackoff: .milliseconds(2), maximumBackoff: .milliseconds(10),
  maximumRetryAfter: .seconds(60), maximumElapsed: .seconds(3600))

/// A client of `server` with test-sized limits, a recorded sleep and a movable clock.
func makeClient(
  _ server: TestServer,
  bootstrapKey: SigningSecret = TestServer.bootstrapKey,
  logs: LogCapture = LogCapture(),
  retryPolicy: RetryPolicy = fastRetries,
  timeout: Duration = .seconds(10),
  maximumBody: Int = 1 << 20,
  store: any TokenStore = InMemoryTokenStore(),
  sleeper: SleepRecorder = SleepRecorder(),
  clock: MovableClock = MovableClock()
) -> ApiClient {
  ApiClient(
    configuration: DexCloudConfiguration(
      baseURL: server.baseURL, bootstrapKey: bootstrapKey, subject: "test-install",
      requestTimeout: timeout, retryPolicy: retryPolicy, maximumRequestBodyBytes: maximumBody),
    tokenStore: store, logger: logs.logger("client"), sleep: sleeper.sleep, now: clock.now)
}

/// The typed error `body` threw, if it was a ``DexCloudError``.
func expectedError(_ body: () async throws -> Void) async -> DexCloudError? {
  await caughtError(DexCloudError.self, body)
}
