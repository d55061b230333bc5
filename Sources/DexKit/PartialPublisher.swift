import DexModel
import Foundation

/// Publishes a scan's partial results as ``DexScanState/Phase/identifying`` states while the
/// cloud pass runs, and nothing once it is closed: a service's task left to end by itself
/// after the deadline cannot publish after the scan's final state.
final class PartialPublisher: @unchecked Sendable {
  private let state: DexScanState
  private let publishState: @Sendable (DexScanState) -> Void
  /// Guards ``isClosed`` and ``stored``.
  private let lock = NSLock()
  private var isClosed = false
  private var stored: PartialScanResult?

  init(state: DexScanState, publish: @escaping @Sendable (DexScanState) -> Void) {
    self.state = state
    self.publishState = publish
  }

  /// The last partial result published.
  var latest: PartialScanResult? { lock.withLock { stored } }

  /// Publishes `partial`, unless the pass is over.
  func publish(_ partial: PartialScanResult) {
    var next = state
    next.phase = .identifying
    next.partialResult = partial
    // Under the lock, so a publish that began cannot land after `close()` returned.
    lock.withLock {
      guard !isClosed else { return }
      stored = partial
      publishState(next)
    }
  }

  /// Ends publishing.
  func close() {
    lock.withLock { isClosed = true }
  }
}
