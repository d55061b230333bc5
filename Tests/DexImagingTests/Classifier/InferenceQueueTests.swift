import Dispatch
import Foundation
import Testing

@testable import DexImaging

/// The classifier's inferences wait off Swift's cooperative pool (no `.offCooperativePool`
/// trait here: the test needs the pool).
@Suite struct InferenceQueueTests {
  /// As many held inferences as the pool has threads, and a task on the pool still runs: the
  /// inferences are released only from that task. Run on the caller's thread instead, they
  /// would hold every pool thread, the releasing task could not run, and each would give up
  /// after 30 s and report it.
  @Test func heldInferencesLeaveThePoolToOtherTasks() async throws {
    let count = max(1, ProcessInfo.processInfo.activeProcessorCount)
    let gate = DispatchSemaphore(value: 0)
    let inferences = (0..<count).map { _ in
      Task {
        try await InferenceQueue.run { _ in gate.wait(timeout: .now() + 30) == .success }
      }
    }
    let released = await Task {
      for _ in 0..<count { gate.signal() }
      return count
    }.value
    #expect(released == count)
    for inference in inferences {
      #expect(try await inference.value, "the inference was released by the task on the pool")
    }
  }

  /// A task cancelled while its inference waits gets ``ClassifierError/cancelled`` before the
  /// work starts, or the work sees the cancellation through `isCancelled`.
  @Test func cancellationReachesTheWork() async throws {
    let gate = DispatchSemaphore(value: 0)
    let inference = Task {
      try await InferenceQueue.run { isCancelled in
        _ = gate.wait(timeout: .now() + 30)
        return isCancelled()
      }
    }
    inference.cancel()
    gate.signal()
    switch await inference.result {
    case .success(let sawCancellation): #expect(sawCancellation)
    case .failure(let error): #expect(error as? ClassifierError == .cancelled)
    }
  }
}
