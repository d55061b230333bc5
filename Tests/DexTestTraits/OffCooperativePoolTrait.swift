import DexTestSupport
import Testing

/// Runs a test, or every test of a suite, on ``DedicatedThreadExecutor/heavyWork``.
///
/// For tests whose work is long and synchronous in a debug build (forward passes, big
/// decodes): they then leave the cooperative pool to the suites that wait on timers and
/// sockets. See ``DedicatedThreadExecutor`` for why this matters on a 2-core machine.
public struct OffCooperativePoolTrait: TestTrait, SuiteTrait, TestScoping {
  /// Applies to every test in a suite, not only to the suite as a whole.
  public var isRecursive: Bool { true }

  /// Runs `function` with the heavy-work executor as its task executor preference.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // The suite itself gets a scope too; only the test cases need moving.
    guard testCase != nil else { return try await function() }
    // Task executors are newer than the package's oldest Apple platforms: there the test stays
    // on the cooperative pool.
    guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else {
      return try await function()
    }
    try await withTaskExecutorPreference(DedicatedThreadExecutor.heavyWork) {
      try await function()
    }
  }
}

extension Trait where Self == OffCooperativePoolTrait {
  /// Runs the test (or each test of the suite) off the cooperative pool; see
  /// ``OffCooperativePoolTrait``.
  public static var offCooperativePool: Self { OffCooperativePoolTrait() }
}
