extension DexCategory {
  /// Maps one free-form string, such as a cloud reply's category ("Bird", "Plant/Flower",
  /// "Pokémon card", "Arachnid"), onto a category.
  ///
  /// An exact raw value wins; otherwise `matcher`'s heuristics decide (by default the keyword
  /// rules of ``DexKeywordMatcher/standard``, backed by its WordNet lexicon); otherwise
  /// ``unknown``. A placeholder that says no category was given ("N/A", "n/a", "none",
  /// "unknown", "-") is ``unknown`` whatever the matcher.
  public static func matching(
    _ string: String, using matcher: any DexCategoryMatching = DexKeywordMatcher.standard
  ) -> DexCategory {
    isPlaceholder(string) ? .unknown : matcher.category(for: string)
  }

  /// Maps ranked classifier labels, highest confidence first, onto the best-fitting category.
  ///
  /// An exact raw-value match anywhere in the labels wins; otherwise `matcher` scans the
  /// highest-confidence labels first (see ``DexKeywordMatcher``); otherwise ``unknown``.
  /// Placeholders ("N/A", "none", "-") are left out whatever the matcher.
  public static func matching(
    fromLabels labels: [String], using matcher: any DexCategoryMatching = DexKeywordMatcher.standard
  ) -> DexCategory {
    matcher.category(forLabels: labels.filter { !isPlaceholder($0) })
  }
}
