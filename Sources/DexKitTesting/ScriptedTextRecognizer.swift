import DexImaging
import Foundation

/// A ``/DexImaging/TextRecognizing`` that plays a script instead of running an OCR engine: each
/// call takes the next ``Reply`` (text, a failure or no answer at all), and the last reply
/// repeats once the script is used up.
///
/// It records the pixels and options of every call (``images``, ``options``), so a test can
/// check that the scanner handed over its Pass-0 pixels and its clamped time budget, and counts
/// the calls that ended by cancellation (``cancellations``). It runs on any platform, without
/// DexTextRecognition's Tesseract engine or Vision.
///
/// ```swift
/// let recognizer = ScriptedTextRecognizer(.text(RecognizedText(lines: [line])))
/// let scanner = DexScanner(
///   classifier: FixedClassifier(category: .plant, label: "lavender"),
///   textRecognizer: recognizer, downscaler: ScriptedDownscaler())
/// ```
public actor ScriptedTextRecognizer: TextRecognizing {
  /// What one call of a ``ScriptedTextRecognizer`` does.
  public enum Reply: Sendable, Hashable {
    /// Answers these lines (an empty ``/DexImaging/RecognizedText`` for a photo without text).
    case text(RecognizedText)
    /// Throws this error, as an engine does for an image or options it refuses.
    case failure(TextRecognitionError)
    /// Never answers: waits until the calling task is cancelled, then throws
    /// `CancellationError`.
    case hang
  }

  private let script: [Reply]
  private var nextReply = 0
  /// The pixels of every call, oldest first.
  public private(set) var images: [RGBImage] = []
  /// The options of every call, oldest first.
  public private(set) var options: [TextRecognitionOptions] = []
  /// How many calls ended because their task was cancelled.
  public private(set) var cancellations = 0

  /// Creates a recognizer that plays `replies` in order and then repeats the last one.
  ///
  /// - Parameter replies: the script; an empty one hangs on every call.
  public init(_ replies: [Reply]) {
    self.script = replies
  }

  /// Creates a recognizer that gives `reply` to every call.
  public init(_ reply: Reply) {
    self.init([reply])
  }

  /// See ``/DexImaging/TextRecognizing/recognizeText(in:options:)``: records the call and plays
  /// the next reply.
  ///
  /// - Throws: the reply's ``/DexImaging/TextRecognitionError``, or `CancellationError` when
  ///   the task is cancelled while the reply hangs.
  public func recognizeText(
    in image: RGBImage, options: TextRecognitionOptions
  ) async throws -> RecognizedText {
    images.append(image)
    self.options.append(options)
    let reply = script.isEmpty ? Reply.hang : script[min(nextReply, script.count - 1)]
    nextReply += 1
    switch reply {
    case .text(let text): return text
    case .failure(let error): throw error
    case .hang:
      do {
        while true { try await Task.sleep(for: .seconds(3600)) }
      } catch {
        cancellations += 1
        throw error
      }
    }
  }
}
