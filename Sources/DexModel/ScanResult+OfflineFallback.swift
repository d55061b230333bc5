import Foundation

extension ScanResult {
  /// The summary every offline entry carries, telling the user how to get the full entry.
  public static let offlineSummary =
    "Identified on-device while offline. Reconnect and scan again for the full Dex entry."

  /// Builds an offline-only result from the on-device guess, used when the cloud pass fails.
  ///
  /// An offline entry beats nothing: it carries the on-device category and confidence, a
  /// capitalized label as its name, and a summary saying that the rich details need a reconnect.
  public static func offlineFallback(for guess: LocalGuess) -> ScanResult {
    ScanResult(
      commonName: guess.label.capitalized,
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
