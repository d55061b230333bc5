import Foundation

/// A wall clock that tests can move, to inject where code asks for `now`.
public final class MovableClock: @unchecked Sendable {
  private let lock = NSLock()
  private var offset: TimeInterval

  /// Creates a clock `offset` seconds away from the real one.
  public init(offset: TimeInterval = 0) { self.offset = offset }

  /// Moves the clock forward (or back, with a negative value).
  public func advance(by seconds: TimeInterval) { lock.withLock { offset += seconds } }

  /// The clock function to inject into the code under test.
  public var now: @Sendable () -> Date {
    { Date().addingTimeInterval(self.lock.withLock { self.offset }) }
  }
}
