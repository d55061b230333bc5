import Foundation

/// A structured identification of the main subject of a photo: the "Dex entry" before it is saved.
///
/// The cloud pass produces one by parsing a model's reply with ``init(jsonString:)``, which
/// survives markdown fences, prose, malformed JSON and truncation, and rejects refusals so that a
/// bogus "Unknown" is never shown as a success. The on-device pass produces one with
/// ``offlineFallback(for:)`` when the cloud is unreachable.
///
/// The field names match the JSON the identification prompt (`DexCloudServer`'s `DexPrompt`)
/// asks for.
public struct ScanResult: Codable, Equatable, Hashable, Sendable {
  /// The everyday name, for example "Monstera Deliciosa", "Clownfish" or "Pikachu".
  public var commonName: String
  /// The category as the model wrote it; see ``dexCategory`` for the stable value.
  public var category: String
  /// The Latin binomial, the Pokémon type(s), or an empty string when unknown.
  public var scientificName: String
  /// One or two engaging sentences about the subject.
  public var summary: String
  /// Three to five short, Pokédex-style facts.
  public var facts: [String]
  /// One of the ``DexRarity`` raw values (`Common`, `Uncommon`, `Rare`, `Legendary`).
  public var rarity: String
  /// The model's confidence in `0...1`.
  public var confidence: Double

  /// Creates a result from already-clean values.
  public init(
    commonName: String,
    category: String,
    scientificName: String = "",
    summary: String = "",
    facts: [String] = [],
    rarity: String = DexRarity.common.rawValue,
    confidence: Double = 0
  ) {
    self.commonName = commonName
    self.category = category
    self.scientificName = scientificName
    self.summary = summary
    self.facts = facts
    self.rarity = rarity
    self.confidence = confidence
  }

  /// The matched, stable category for this result, by ``DexKeywordMatcher/standard``.
  public var dexCategory: DexCategory { dexCategory(using: DexKeywordMatcher.standard) }

  /// The matched, stable category for this result, by `matcher`.
  public func dexCategory(using matcher: any DexCategoryMatching) -> DexCategory {
    DexCategory.matching(category, using: matcher)
  }

  /// The rarity as a ``DexRarity``, ``DexRarity/common`` when it cannot be read.
  public var dexRarity: DexRarity { DexRarity(matching: rarity) ?? .common }
}

extension ScanResult {
  /// Decodes tolerantly: every field is optional, may use `snake_case`, and falls back to a
  /// sensible default when missing or of the wrong type, exactly like ``init(jsonString:)``'s
  /// field layer (which this shares). No refusal check happens here; use ``init(jsonString:)``
  /// for model replies.
  public init(from decoder: any Decoder) throws {
    let value = try JSONValue(from: decoder)
    self = ScanResult.decodeFields(from: value.objectMembers ?? [:])
  }

  /// The prompt's camelCase keys, used by the synthesized `encode(to:)`.
  enum CodingKeys: String, CodingKey {
    case commonName, category, scientificName, summary, facts, rarity, confidence
  }
}
