import Dispatch
import Foundation

/// Runs blocking `work` on `queue`, a thread outside Swift's cooperative pool, and awaits its
/// result without holding a thread of that pool; `work`'s `isCancelled` says whether the
/// awaiting task was cancelled.
///
/// The cooperative pool has one thread per core, so work that holds its thread for long
/// (a network's inference, a wait on a decoding worker) run there would stall every other task
/// of the host. ``InferenceQueue`` and the isolated decoder's worker pool both go through here.
func awaitOffCooperativePool<T: Sendable>(
  on queue: DispatchQueue,
  _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) -> T
) async -> T {
  let cancelled = CancellationFlag()
  return await withTaskCancellationHandler {
    await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: work { cancelled.isSet }) }
    }
  } onCancel: {
    cancelled.set()
  }
}
