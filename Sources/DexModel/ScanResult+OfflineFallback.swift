import Foundation

extension ScanResult {
  /// The summary every offline entry carries, telling the user how to get the full entry.
  public static let offlineSummary =
    "Identified on-device while offline. Reconnect and scan again for the full Dex entry."

  /// Builds an offline-only result from the on-device guess, used when the cloud pass fails.
  ///
  /// An offline entry beats nothing: it carries the on-device category and confidence, a name
  /// that says only what the classifier knows (``LocalGuess/offlineName``: the label when it is
  /// likely, "Unidentified plant" when only the category is, "Not sure — maybe a plant" when
  /// not even that), and a summary saying that the rich details need a reconnect. The label
  /// itself is kept on the saved entry as ``DexEntry/localGuessLabel``.
  public static func offlineFallback(for guess: LocalGuess) -> ScanResult {
    ScanResult(
      commonName: guess.offlineName,
      category: guess.category.rawValue,
      scientificName: "",
      summary: offlineSummary,
      facts: [],
      rarity: DexRarity.common.rawValue,
      confidence: guess.confidence
    )
  }

  /// Whether this result was built by ``offlineFallback(for:)`` rather than by the cloud.
  public var isOfflineFallback: Bool { summary == Self.offlineSummary && facts.isEmpty }
}
