import Foundation

/// A saved discovery: a ``ScanResult`` plus what the on-device pass saw and when it was found.
///
/// `DexEntry` is a plain value. Its photo does not live inside it: the store keeps image bytes
/// beside the entry and loads them on demand, so listing thousands of entries never loads
/// thousands of images.
public struct DexEntry: Identifiable, Codable, Equatable, Hashable, Sendable {
  /// A UUID string, unique within a store and stable across export and import.
  public var id: String
  /// The everyday name, for example "Clownfish".
  public var commonName: String
  /// The persisted ``DexCategory`` raw value; read ``category`` instead.
  public var categoryRaw: String
  /// The Latin binomial, the Pokémon type(s), or an empty string.
  public var scientificName: String
  /// One or two sentences about the subject.
  public var summary: String
  /// Short, Pokédex-style facts ("Field Notes").
  public var facts: [String]
  /// One of the ``DexRarity`` raw values.
  public var rarity: String
  /// Confidence in `0...1`.
  public var confidence: Double
  /// What the on-device classifier guessed, kept for transparency; empty when there was no guess.
  public var localGuessLabel: String
  /// When the subject was discovered.
  public var dateDiscovered: Date
  /// Free-form notes the user added after saving.
  public var notes: String
  /// The printed text read in the photo on device (a plant tag's name, a card's title), one
  /// line per line; `nil` when the scan did not read text or found none.
  ///
  /// It exists so that a collection can be searched for what the photo *says*, not only for
  /// what the identification calls it.
  public var recognizedText: String?

  /// Creates an entry from explicit values.
  public init(
    id: String = UUID().uuidString,
    commonName: String,
    categoryRaw: String,
    scientificName: String = "",
    summary: String = "",
    facts: [String] = [],
    rarity: String = DexRarity.common.rawValue,
    confidence: Double = 0,
    localGuessLabel: String = "",
    dateDiscovered: Date = Date(),
    notes: String = "",
    recognizedText: String? = nil
  ) {
    self.id = id
    self.commonName = commonName
    self.categoryRaw = categoryRaw
    self.scientificName = scientificName
    self.summary = summary
    self.facts = facts
    self.rarity = rarity
    self.confidence = confidence
    self.localGuessLabel = localGuessLabel
    self.dateDiscovered = dateDiscovered
    self.notes = notes
    self.recognizedText = recognizedText
  }

  /// Builds an entry from a finished scan, the way a scanner's "Save" does; `recognizedText`
  /// is the text read in the photo, if it was read.
  ///
  /// The category is stored as the *matched* ``DexCategory`` so that filters agree with badges,
  /// whatever free-form text the model wrote.
  public init(
    scan: ScanResult,
    localGuess: LocalGuess?,
    id: String = UUID().uuidString,
    discoveredAt: Date = Date(),
    matcher: any DexCategoryMatching = DexKeywordMatcher.standard,
    recognizedText: String? = nil
  ) {
    self.init(
      id: id,
      commonName: scan.commonName,
      categoryRaw: scan.dexCategory(using: matcher).rawValue,
      scientificName: scan.scientificName,
      summary: scan.summary,
      facts: scan.facts,
      rarity: scan.dexRarity.rawValue,
      confidence: scan.confidence,
      localGuessLabel: localGuess?.label ?? "",
      dateDiscovered: discoveredAt,
      recognizedText: recognizedText
    )
  }

  /// The stable category, derived from the stored raw value.
  public var category: DexCategory { DexCategory(rawValue: categoryRaw) ?? .unknown }

  /// The rarity as a ``DexRarity``, ``DexRarity/common`` when it cannot be read.
  public var dexRarity: DexRarity { DexRarity(matching: rarity) ?? .common }

  /// The entry's identification as a ``ScanResult``, for hosts that render both the same way.
  public var scanResult: ScanResult {
    ScanResult(
      commonName: commonName, category: categoryRaw, scientificName: scientificName,
      summary: summary, facts: facts, rarity: rarity, confidence: confidence)
  }
}
