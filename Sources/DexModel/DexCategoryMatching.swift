/// The capability behind category matching: turning free-form labels (classifier identifiers,
/// a cloud reply's category) into a ``DexCategory``.
///
/// ``DexKeywordMatcher`` is DexKit's conformance. Everything that matches takes a matcher as a
/// value (``DexCategory/matching(_:using:)``, ``ScanResult/dexCategory(using:)``,
/// ``DexEntry/init(scan:localGuess:id:discoveredAt:matcher:recognizedText:)``), defaulting to
/// ``DexKeywordMatcher/standard``, so a host's vocabulary changes only what it passes it to.
public protocol DexCategoryMatching: Sendable {
  /// One free-form string (a cloud reply's category) mapped onto a category;
  /// ``DexCategory/unknown`` when nothing fits.
  func category(for string: String) -> DexCategory

  /// Ranked labels, highest confidence first, mapped onto the best-fitting category;
  /// ``DexCategory/unknown`` when nothing fits.
  func category(forLabels labels: [String]) -> DexCategory
}
