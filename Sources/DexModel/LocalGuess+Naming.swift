extension LocalGuess {
  /// The probability a label must reach (``labelConfidence``, or ``confidence`` when that is
  /// unknown) before an offline entry is named after it.
  ///
  /// Chosen on the evaluation set's tune split (`Scripts/classifier-evalset.py report`): of the
  /// photos whose best ImageNet class had a probability of at least 0.6, 42 of 43 had that class
  /// in the right category (at 0.5: 49 of 51; at 0.3: 73 of 77).
  public static let namingThreshold = 0.6

  /// The category probability (``confidence``) below which a guess is worded as unsure
  /// ("Not sure — maybe a plant"): below one half, the category is more likely wrong than
  /// right.
  public static let likelyCategoryThreshold = 0.5

  /// Whether ``label`` is likely enough to name an entry: its probability reaches
  /// ``namingThreshold`` and the category itself is likely (``isCategoryLikely``).
  public var isLabelLikely: Bool {
    isCategoryLikely && (labelConfidence ?? confidence) >= Self.namingThreshold
      && !label.isEmpty
  }

  /// Whether ``category`` is likely: ``confidence`` reaches ``likelyCategoryThreshold`` and
  /// the category is not ``DexCategory/unknown``.
  public var isCategoryLikely: Bool {
    category != .unknown && confidence >= Self.likelyCategoryThreshold
  }

  /// What an offline entry built from this guess is called, saying only what the classifier
  /// knows:
  ///
  /// - the classifier's ``name`` ("Domestic Cat", "Spaniel", "Flower") when the category is
  ///   likely and the classifier named it;
  /// - for a classifier that gives no ``name`` (`nil`), the capitalised ``label`` ("Tree Frog")
  ///   when ``isLabelLikely``;
  /// - a category-level name ("Unidentified plant", "Some kind of fish") when only the category
  ///   is likely;
  /// - an unsure name ("Not sure — maybe a plant") when even the category is not.
  public var offlineName: String {
    if isCategoryLikely, let name {
      return name.isEmpty ? category.unidentifiedName : name
    }
    if isLabelLikely { return label.capitalized }
    if isCategoryLikely { return category.unidentifiedName }
    return category == .unknown
      ? "Not sure what this is" : "Not sure — maybe \(category.withArticle)"
  }
}
