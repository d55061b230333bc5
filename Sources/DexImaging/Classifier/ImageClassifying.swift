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

  /// The classifier's best `limit` labels for the image, best first; empty on failure.
  func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel]
}

extension ImageClassifying {
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
