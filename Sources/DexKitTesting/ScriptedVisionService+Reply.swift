import DexCloud
import DexModel
import Foundation

extension ScriptedVisionService {
  /// What one call of a ``ScriptedVisionService`` does.
  public struct Reply: Sendable {
    private enum Outcome: Sendable {
      case result(ScanResult)
      case failure(any Error)
      case hang
      case description(String)
      case streamed([Step])
    }

    /// One step of a ``streamed(_:after:)`` reply.
    public enum Step: Sendable {
      /// The next piece of the model's text (a description's, or an identification's JSON).
      case text(String)
      /// The stream goes quiet for a while (it still ends when the calling task is cancelled).
      case pause(Duration)
      /// The stream stops here with `error`: a dropped connection. A streamed identification
      /// throws `InterruptedScanError` with the fields so far and `error` as its reason.
      case cut(any Error & Sendable)
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

    /// Answers a description (AI Vision) with `text`, after `delay`.
    public static func description(_ text: String, after delay: Duration = .zero) -> Reply {
      Reply(outcome: .description(text), delay: delay)
    }

    /// Streams `steps`, after `delay`: text pieces, pauses and a cut. A description is the
    /// pieces joined; an identification is parsed from them as a backend's reply is, partial
    /// results included (`IncrementalScanParser`), and refused as it would be. Calls that do
    /// not stream get the same outcome whole.
    public static func streamed(_ steps: [Step], after delay: Duration = .zero) -> Reply {
      Reply(outcome: .streamed(steps), delay: delay)
    }

    /// `text` streamed in pieces of `chunkSize` characters, with `pause` between them.
    public static func streamed(
      _ text: String, chunkSize: Int, pause: Duration = .zero
    ) -> Reply {
      var steps: [Step] = []
      var rest = Substring(text)
      while !rest.isEmpty {
        if !steps.isEmpty, pause > .zero { steps.append(.pause(pause)) }
        steps.append(.text(String(rest.prefix(max(1, chunkSize)))))
        rest = rest.dropFirst(max(1, chunkSize))
      }
      return streamed(steps)
    }

    /// Waits, then answers or throws.
    func play() async throws -> ScanResult {
      var final: ScanResult?
      try await playIdentification { if case .complete(let result) = $0 { final = result } }
      guard let final else { throw Failure("The script gave no identification.") }
      return final
    }

    /// Waits, then hands over an identification's updates (partial results for a streamed
    /// reply) or throws.
    func playIdentification(_ yield: (IdentificationUpdate) -> Void) async throws {
      try await begin()
      switch outcome {
      case .result(let result): yield(.complete(result))
      case .failure(let error): throw error
      case .description: throw Failure("The script answers a description, not an entry.")
      case .hang: try await Self.hangForever()
      case .streamed(let steps):
        var parser = IncrementalScanParser()
        for step in steps {
          switch step {
          case .text(let piece):
            if let partial = parser.consume(text: piece) { yield(.partial(partial)) }
          case .pause(let duration):
            try await Task.sleep(for: duration)
          case .cut(let error):
            throw parser.interrupted(by: error)
          }
        }
        yield(.complete(try parser.finish()))
      }
    }

    /// Waits, then hands over a description's pieces or throws.
    func playDescription(_ yield: (String) -> Void) async throws {
      try await begin()
      switch outcome {
      case .description(let text): yield(text)
      case .result: throw Failure("The script answers an entry, not a description.")
      case .failure(let error): throw error
      case .hang: try await Self.hangForever()
      case .streamed(let steps):
        for step in steps {
          switch step {
          case .text(let piece): yield(piece)
          case .pause(let duration): try await Task.sleep(for: duration)
          case .cut(let error): throw error
          }
        }
      }
    }

    private func begin() async throws {
      if delay > .zero { try await Task.sleep(for: delay) }
    }

    private static func hangForever() async throws {
      while true { try await Task.sleep(for: .seconds(3600)) }
    }
  }
}
