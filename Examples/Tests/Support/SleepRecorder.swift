import Foundation

/// Records the waits a client asks for, and waits only `actual` (zero by default), so retry
/// tests assert the requested backoff without spending it.
public final class SleepRecorder: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Duration] = []
  /// How long each requested sleep really waits; `nil` sleeps the full requested duration.
  public let actual: Duration?

  /// Creates a recorder; `actual == nil` sleeps for real, the full requested duration.
  public init(actual: Duration? = .zero) {
    self.actual = actual
  }

  /// Every duration asked for so far, in order.
  public var requested: [Duration] { lock.withLock { storage } }

  /// The sleep function to inject into the code under test.
  public var sleep: @Sendable (Duration) async throws -> Void {
    { duration in
      self.lock.withLock { self.storage.append(duration) }
      try await Task.sleep(for: self.actual ?? duration)
    }
  }
}
