import DexTestSupport
import Foundation
import Logging

@testable import DexCloud

/// Records the waits the client asks for, and waits only `actual` (zero by default), so retry
/// tests assert the requested backoff without spending it.
final class SleepRecorder: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Duration] = []
  let actual: Duration?

  /// `actual == nil` sleeps for real, the full requested duration.
  init(actual: Duration? = .zero) {
    self.actual = actual
  }

  var requested: [Duration] { lock.sync { storage } }

  var sleep: @Sendable (Duration) async throws -> Void {
    { duration in
      self.lock.sync { self.storage.append(duration) }
      try await Task.sleep(for: self.actual ?? duration)
    }
  }
}

/// A client clock that tests can move.
final class MovableClock: @unchecked Sendable {
  private let lock = NSLock()
  private var offset: TimeInterval

  init(offset: TimeInterval = 0) { self.offset = offset }

  func advance(by seconds: TimeInterval) { lock.sync { offset += seconds } }
  var now: @Sendable () -> Date { { Date().addingTimeInterval(self.lock.sync { self.offset }) } }
}

/// Retries that never wait long: tests run in milliseconds.
let fastRetries = RetryPolicy(
  maximumAttempts: 4, initialBackoff: .milliseconds(2), maximumBackoff: .milliseconds(10),
  maximumRetryAfter: .seconds(60), maximumElapsed: .seconds(30))

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

func expectedError(_ body: () async throws -> Void) async -> DexCloudError? {
  do {
    try await body()
    return nil
  } catch let error as DexCloudError {
    return error
  } catch {
    return nil
  }
}
