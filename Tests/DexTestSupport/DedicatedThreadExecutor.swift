import Foundation

/// A `TaskExecutor` with worker threads of its own, outside Swift's cooperative pool.
///
/// Swift Testing runs suites side by side on the cooperative pool, which has one thread per
/// core. A test that runs a debug-built forward pass holds its thread for about a second, so on
/// a 2-core CI machine two such tests stall every other suite, and tests with deadlines (HTTP
/// timeouts, store observations, clock-skew checks) fail for reasons that are not theirs.
/// The `.offCooperativePool` trait (DexTestTraits) runs such tests here instead: every
/// nonisolated async function they call, DexKit's own included, then runs on these threads, and
/// the pool stays free.
///
/// Task executors need macOS 15, iOS 18, tvOS 18 or watchOS 11; on older Apple systems the trait
/// leaves the tests on the cooperative pool.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
  /// The executor the CPU-heavy tests share: two threads, so that tests of concurrent calls
  /// still run concurrently.
  public static let heavyWork = DedicatedThreadExecutor(name: "dexkit-tests-heavy", threads: 2)

  private let condition = NSCondition()
  private var pending: [UnownedJob] = []  // guarded by `condition`

  /// Starts `threads` worker threads named `name`; they live as long as the process.
  public init(name: String, threads: Int) {
    for index in 0..<max(1, threads) {
      let thread = Thread { [self] in self.work() }
      thread.name = "\(name)-\(index)"
      thread.start()
    }
  }

  /// Queues a job; the first idle worker runs it.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    pending.append(job)
    condition.signal()
    condition.unlock()
  }

  private func work() {
    let executor = asUnownedTaskExecutor()
    while true {
      condition.lock()
      while pending.isEmpty { condition.wait() }
      let job = pending.removeFirst()
      condition.unlock()
      job.runSynchronously(on: executor)
    }
  }
}
