import Dispatch
import Foundation

/// Where ``ImageClassifier`` runs the network: a few serial dispatch queues of its own (one per
/// core, and as many more for the second view of a two-view guess), never Swift's cooperative
/// pool.
///
/// An inference is hundreds of milliseconds of arithmetic on the calling thread (seconds on the
/// portable path in a debug build, the path of every platform without oneDNN 2: Debian 13,
/// Ubuntu 24.04, Apple's). The cooperative pool has one thread per core, so a few inferences
/// run there held every thread: on a two-core machine two of them stalled every other task of
/// the process (HTTP servers and clients in the same process timed out; found in a Debian 13
/// run of the test suite). Each serial queue has a thread of its own when it has work, so the
/// number of inferences running at once stays bounded by the core count (twice that for
/// passes, counting the second views'), and a caller waits for its turn without holding a pool
/// thread.
enum InferenceQueue {
  private static let queues: [DispatchQueue] =
    (0..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map {
      DispatchQueue(label: "DexImaging.Classifier.\($0)", qos: .userInitiated)
    }
  private static let turn = Turn()
  /// Where the second view's pass of an inference runs while its calling thread runs the first
  /// (``ClassifierModel/logits(for:views:threads:)``): serial queues, like the ones above, which
  /// libdispatch runs on its overcommit threads, so the pass does not wait for a worker of a
  /// pool (the caller's own included) that is busy or blocked; it waits only for the second
  /// passes queued on the same queue before it, when more callers than cores make two-view
  /// guesses at once. Its thread stays warm between calls (a new thread per pass made the
  /// two-view guess 1.2 times slower).
  private static let besideQueues: [DispatchQueue] =
    (0..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map {
      DispatchQueue(label: "DexImaging.Classifier.beside.\($0)", qos: .userInitiated)
    }
  private static let besideTurn = Turn()

  /// The queue for the next second-view pass, taken in turn.
  static func nextBesideQueue() -> DispatchQueue {
    besideQueues[besideTurn.next(below: besideQueues.count)]
  }

  /// Runs `work` on one of the queues and returns its outcome; `work`'s `isCancelled` says
  /// whether the awaiting task was cancelled (the network asks it between layers).
  static func run<T: Sendable>(
    _ work:
      @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool)
      throws(ClassifierError) -> T
  ) async throws(ClassifierError) -> T {
    let queue = queues[turn.next(below: queues.count)]
    let outcome: Result<T, ClassifierError> = await awaitOffCooperativePool(on: queue) {
      isCancelled in
      Result { () throws(ClassifierError) in
        if isCancelled() { throw .cancelled }
        return try work(isCancelled)
      }
    }
    return try outcome.get()
  }

  /// The queues taken in turn.
  private final class Turn: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next(below limit: Int) -> Int {
      lock.withLock {
        defer { count = (count + 1) % limit }
        return count
      }
    }
  }
}
