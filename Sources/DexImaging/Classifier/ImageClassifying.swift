import DexModel
import Foundation

/// The capability behind Pass 1 of a scan: an instant, offline, private coarse guess.
///
/// DexKit's default conformance is ``ImageClassifier`` (EfficientNet-Lite0 in pure Swift). Hosts
/// plug in their own (Core ML, Vision, a server model) without touching anything else: the scan
/// flow only ever talks to this protocol.
public protocol ImageClassifying: Sendable {
  /// Classifies encoded image bytes (the Pass-0 JPEG) into a coarse guess.
  ///
  /// Never throws: a failure (undecodable bytes, an image too small to judge, no confident
  /// answer, cancellation) is `nil`, so that the flow simply goes on without a local hint.
  func classify(imageData: Data) async -> LocalGuess?

  /// Classifies the Pass-0 result of a scan. ``DownscaledImage/pixels`` are the decoded photo
  /// itself, so a conformance that reads pixels never decodes the JPEG again.
  ///
  /// The default implementation classifies ``DownscaledImage/jpegData`` with
  /// ``classify(imageData:)``, for conformances that only take encoded bytes.
  func classify(_ image: DownscaledImage) async -> LocalGuess?

  /// The classifier's best `limit` labels for the image, best first; empty on failure.
  func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel]
}

extension ImageClassifying {
  /// Classifies the JPEG of `image` with ``classify(imageData:)``.
  public func classify(_ image: DownscaledImage) async -> LocalGuess? {
    await classify(imageData: image.jpegData)
  }

  /// A default for conformances that only produce a single guess: that guess as one label.
  public func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel] {
    guard limit > 0, let guess = await classify(imageData: imageData) else { return [] }
    return [
      ClassificationLabel(
        identifier: guess.label, label: guess.label, confidence: guess.confidence,
        category: guess.category)
    ]
  }
}
