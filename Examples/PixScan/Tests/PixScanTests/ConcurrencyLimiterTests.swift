import Synchronization
import Testing

@testable import PixScanCore

/// The limiter that bounds decodes and recognitions and runs mutations one at a time: the order
/// it hands out slots, and a waiter that gives up.
@Suite struct ConcurrencyLimiterTests {
  /// Width 1: the holder runs, three wait in order; the first waiter is cancelled and leaves at
  /// once with `cancelled` (before the holder is done), its work never running; the others run
  /// after the holder, in the order they came; the peak stays 1.
  @Test func aCancelledWaiterLeavesTheLineAndTheOthersKeepTheirOrder() async throws {
    let limiter = ConcurrencyLimiter(width: 1)
    let gate = LimiterGate()
    let log = LimiterLog()
    let holder = Task {
      try await limiter.run { () async throws(PixScanError) in
        await gate.wait()
        log.append("holder")
      }
    }
    #expect(await eventually { gate.isEntered })
    let cancelled = Task { () async -> PixScanError? in
      defer { log.append("left") }
      do throws(PixScanError) {
        try await limiter.run { () async throws(PixScanError) in log.append("cancelled") }
        return nil
      } catch {
        return error
      }
    }
    // Each in line before the next one starts (a fixed sleep ordered them only on an idle
    // machine: a loaded one can start a task later than the next).
    #expect(await eventually { limiter.waiting == 1 })
    let second = Task {
      try await limiter.run { () async throws(PixScanError) in log.append("second") }
    }
    #expect(await eventually { limiter.waiting == 2 })
    let third = Task {
      try await limiter.run { () async throws(PixScanError) in log.append("third") }
    }
    #expect(await eventually { limiter.waiting == 3 })
    cancelled.cancel()
    // Left the line while the holder still holds the slot (bounded: a waiter that stayed in line
    // would only leave once the gate opens).
    #expect(await eventually { log.entries == ["left"] }, "\(log.entries)")
    gate.open()
    #expect(await cancelled.value == .cancelled)
    try await holder.value
    try await second.value
    try await third.value
    #expect(log.entries == ["left", "holder", "second", "third"])
    #expect(limiter.peak == 1)
  }

  /// A cancelled task is refused only if it has to wait: a free slot still runs it.
  @Test func aCancelledTaskThatNeedNotWaitRuns() async throws {
    let limiter = ConcurrencyLimiter(width: 2)
    let log = LimiterLog()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await limiter.run { () async throws(PixScanError) in log.append("ran") }
    }
    try await task.value
    #expect(log.entries == ["ran"])
  }
}

/// A gate the first piece of work holds the only slot behind, until the test opens it.
private final class LimiterGate: Sendable {
  private let opened = Mutex<CheckedContinuation<Void, Never>?>(nil)
  private let entered = Mutex(false)

  var isEntered: Bool { entered.withLock { $0 } }

  func wait() async {
    await withCheckedContinuation { continuation in
      opened.withLock { $0 = continuation }
      entered.withLock { $0 = true }
    }
  }

  func open() {
    opened.withLock { $0.take() }?.resume()
  }
}

/// What ran, in order.
private final class LimiterLog: Sendable {
  private let list = Mutex<[String]>([])
  var entries: [String] { list.withLock { $0 } }
  func append(_ entry: String) { list.withLock { $0.append(entry) } }
}

/// Waits until `condition` holds, polling every 10 ms for at most a minute (a loaded CI run can
/// stall a task for over 10 s).
private func eventually(_ condition: () -> Bool) async -> Bool {
  for _ in 0..<6000 {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return condition()
}
