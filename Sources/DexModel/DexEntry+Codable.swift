import Foundation

extension DexEntry {
  enum CodingKeys: String, CodingKey {
    case id, commonName, categoryRaw, scientificName, summary, facts, rarity, confidence
    case localGuessLabel, dateDiscovered, notes, recognizedText
  }

  /// Decodes an entry, tolerating fields that older or other writers leave out: only `id`,
  /// `commonName` and `dateDiscovered` are required; everything else falls back to the same
  /// defaults as ``init(id:commonName:categoryRaw:scientificName:summary:facts:rarity:confidence:localGuessLabel:dateDiscovered:notes:recognizedText:)``.
  /// Backups written before a field existed therefore keep importing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      id: try container.decode(String.self, forKey: .id),
      commonName: try container.decode(String.self, forKey: .commonName),
      categoryRaw: try container.decodeIfPresent(String.self, forKey: .categoryRaw)
        ?? DexCategory.unknown.rawValue,
      scientificName: try container.decodeIfPresent(String.self, forKey: .scientificName) ?? "",
      summary: try container.decodeIfPresent(String.self, forKey: .summary) ?? "",
      facts: try container.decodeIfPresent([String].self, forKey: .facts) ?? [],
      rarity: try container.decodeIfPresent(String.self, forKey: .rarity)
        ?? DexRarity.common.rawValue,
      confidence: try container.decodeIfPresent(Double.self, forKey: .confidence) ?? 0,
      localGuessLabel: try container.decodeIfPresent(String.self, forKey: .localGuessLabel) ?? "",
      dateDiscovered: try container.decode(Date.self, forKey: .dateDiscovered),
      notes: try container.decodeIfPresent(String.self, forKey: .notes) ?? "",
      recognizedText: try container.decodeIfPresent(String.self, forKey: .recognizedText))
  }
}
