/// The instant, offline coarse guess produced by the on-device pass of a scan.
///
/// It seeds the UI at once ("Looks like a Plant…"), is sent to the cloud as a weak hint, and is
/// what ``ScanResult/offlineFallback(for:)`` builds an entry from when the cloud is unreachable.
public struct LocalGuess: Equatable, Hashable, Sendable, Codable {
  /// The category the classifier's labels map to.
  public var category: DexCategory
  /// The top raw label, lightly cleaned for display (for example "tree frog").
  public var label: String
  /// Confidence in `0...1`.
  public var confidence: Double

  /// Creates a guess; `confidence` is clamped to `0...1` (a non-finite value becomes 0).
  public init(category: DexCategory, label: String, confidence: Double) {
    self.category = category
    self.label = label
    self.confidence = confidence.isFinite ? min(max(confidence, 0), 1) : 0
  }
}
