import DexModel

/// One ranked answer of an image classifier: a class, its display label, its confidence and the
/// ``/DexModel/DexCategory`` it belongs to.
///
/// ``ImageClassifying/rankedLabels(imageData:limit:)`` returns these best first for hosts that
/// want more than the single ``/DexModel/LocalGuess`` (a "did you mean" list, debugging, analytics).
public struct ClassificationLabel: Sendable, Hashable, Codable {
  /// A stable identifier of the class, for ImageNet its WordNet id (for example `n01644373`).
  public var identifier: String
  /// The class name cleaned for display (for example "tree frog").
  public var label: String
  /// The probability the classifier gives this class, in `0...1`.
  public var confidence: Double
  /// The coarse category the class maps to.
  public var category: DexCategory

  /// Creates a label; `confidence` is clamped to `0...1` (a non-finite value becomes 0).
  public init(identifier: String, label: String, confidence: Double, category: DexCategory) {
    self.identifier = identifier
    self.label = label
    self.confidence = confidence.isFinite ? min(max(confidence, 0), 1) : 0
    self.category = category
  }
}
