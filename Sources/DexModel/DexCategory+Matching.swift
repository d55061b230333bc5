extension DexCategory {
  /// Maps one free-form string, such as a cloud reply's category ("Bird", "Plant/Flower",
  /// "Pokémon card", "Arachnid"), onto a category.
  ///
  /// An exact raw value wins; otherwise ``DexKeywordMatcher/current``'s keyword heuristics
  /// decide; otherwise ``unknown``.
  public static func matching(_ string: String) -> DexCategory {
    DexKeywordMatcher.current.category(for: string)
  }

  /// Maps ranked classifier labels, highest confidence first, onto the best-fitting category.
  ///
  /// An exact raw-value match anywhere in the labels wins; otherwise keyword heuristics scan
  /// the highest-confidence labels first (see ``DexKeywordMatcher``); otherwise ``unknown``.
  public static func matching(fromLabels labels: [String]) -> DexCategory {
    DexKeywordMatcher.current.category(forLabels: labels)
  }

  /// ``matching(_:)`` with a specific matcher instead of ``DexKeywordMatcher/current``.
  public static func matching(_ string: String, using matcher: DexKeywordMatcher) -> DexCategory {
    matcher.category(for: string)
  }

  /// ``matching(fromLabels:)`` with a specific matcher instead of
  /// ``DexKeywordMatcher/current``.
  public static func matching(
    fromLabels labels: [String], using matcher: DexKeywordMatcher
  )
    -> DexCategory
  {
    matcher.category(forLabels: labels)
  }
}
