import DexModel
import Foundation

extension ScriptedVisionService {
  /// What one call of a ``ScriptedVisionService`` does.
  public struct Reply: Sendable {
    private enum Outcome: Sendable {
      case result(ScanResult)
      case failure(any Error)
      case hang
    }

    private let outcome: Outcome
    private let delay: Duration

    /// Answers `result`, after `delay`.
    public static func result(_ result: ScanResult, after delay: Duration = .zero) -> Reply {
      Reply(outcome: .result(result), delay: delay)
    }

    /// Throws `error` (by default a ``ScriptedVisionService/Failure``), after `delay`: for
    /// example a `DexCloudError` to play a backend's refusal.
    public static func failure(
      _ error: any Error = Failure(), after delay: Duration = .zero
    ) -> Reply {
      Reply(outcome: .failure(error), delay: delay)
    }

    /// Never answers: waits until the calling task is cancelled, as an unreachable backend does
    /// until a deadline gives up on it.
    public static let hang = Reply(outcome: .hang, delay: .zero)

    /// Waits, then answers or throws.
    func play() async throws -> ScanResult {
      if delay > .zero { try await Task.sleep(for: delay) }
      switch outcome {
      case .result(let result): return result
      case .failure(let error): throw error
      case .hang:
        while true { try await Task.sleep(for: .seconds(3600)) }
      }
    }
  }
}
