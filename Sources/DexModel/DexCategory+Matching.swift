extension DexCategory {
  /// Maps one free-form string to a category.
  public static func matching(_ string: String) -> DexCategory {
    DexCategory(rawValue: string.lowercased()) ?? .unknown
  }

  /// Maps ranked labels to a category.
  public static func matching(fromLabels labels: [String]) -> DexCategory {
    labels.lazy.compactMap { DexCategory(rawValue: $0.lowercased()) }.first ?? .unknown
  }
}
