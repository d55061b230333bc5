/// The instant, offline coarse guess produced by the on-device pass of a scan.
///
/// It seeds the UI at once ("Looks like a Plant…"), is sent to the cloud as a weak hint, and is
/// what ``ScanResult/offlineFallback(for:)`` builds an entry from when the cloud is unreachable.
public struct LocalGuess: Equatable, Hashable, Sendable, Codable {
  /// The category the classifier's labels map to.
  public var category: DexCategory
  /// The best raw label of ``category``, lightly cleaned for display (for example "tree frog").
  public var label: String
  /// The probability, in `0...1`, that ``category`` is right (for DexKit's own classifier a
  /// calibrated probability, see the offline classifier article).
  public var confidence: Double
  /// The probability, in `0...1`, that ``label`` itself is right, or `nil` when the classifier
  /// does not say (then ``confidence`` stands in for it).
  ///
  /// It decides whether an offline entry may be named after the label
  /// (``offlineName``): a label is only a name when it is likely on its own, not merely
  /// because its category is.
  public var labelConfidence: Double?
  /// The most specific name the classifier is sure of, between ``label`` and the category
  /// ("Domestic Cat", "Spaniel", "Dog", "Flower"); empty when it is sure of no name below the
  /// category; `nil` when the classifier does not say (then ``offlineName`` falls back to
  /// ``label`` and ``labelConfidence``).
  ///
  /// DexKit's classifier pools its class probabilities up a WordNet tree to find it.
  public var name: String?
  /// The probability, in `0...1`, that ``name`` is right, or `nil` without a name.
  public var nameConfidence: Double?

  /// Creates a guess; `confidence`, `labelConfidence` and `nameConfidence` are clamped to
  /// `0...1` (a non-finite value becomes 0).
  public init(
    category: DexCategory, label: String, confidence: Double, labelConfidence: Double? = nil,
    name: String? = nil, nameConfidence: Double? = nil
  ) {
    self.category = category
    self.label = label
    self.confidence = Self.clamped(confidence)
    self.labelConfidence = labelConfidence.map(Self.clamped)
    self.name = name
    self.nameConfidence = nameConfidence.map(Self.clamped)
  }

  private static func clamped(_ value: Double) -> Double {
    value.isFinite ? min(max(value, 0), 1) : 0
  }
}
