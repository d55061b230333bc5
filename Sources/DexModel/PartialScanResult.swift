import Foundation

/// The fields of a ``ScanResult`` known so far while a model's reply streams in.
///
/// ``IncrementalScanParser`` fills one in as each field of the reply completes (the prompt asks
/// for the name first), so an app can show the name while the rest is still being written. A
/// field, once set, keeps its value: partial results only grow. The finished entry is the
/// ``ScanResult`` the whole-text parse gives (``ScanResult/init(jsonString:)``), which may still
/// refuse the reply; a partial result is a preview, never something to save.
///
/// It is also the typed `partial` event of the proxy's streamed identification
/// (`dex-proxy`'s wire; see DexCloud's request-signing article), so every property is optional
/// and encodes only when set.
public struct PartialScanResult: Codable, Equatable, Hashable, Sendable {
  /// The everyday name, once known.
  public var commonName: String?
  /// The category as the model wrote it, once known.
  public var category: String?
  /// The Latin binomial or the Pokémon type(s), once known (possibly empty).
  public var scientificName: String?
  /// The summary, once complete.
  public var summary: String?
  /// The facts, once the whole list is known.
  public var facts: [String]?
  /// The rarity, once known.
  public var rarity: String?
  /// The confidence in `0...1`, once known.
  public var confidence: Double?

  /// Creates a partial result; every field defaults to unknown.
  public init(
    commonName: String? = nil, category: String? = nil, scientificName: String? = nil,
    summary: String? = nil, facts: [String]? = nil, rarity: String? = nil,
    confidence: Double? = nil
  ) {
    (self.commonName, self.category, self.scientificName) = (commonName, category, scientificName)
    (self.summary, self.facts) = (summary, facts)
    (self.rarity, self.confidence) = (rarity, confidence)
  }

  /// Every field of `result`, as known.
  public init(_ result: ScanResult) {
    self.init(
      commonName: result.commonName, category: result.category,
      scientificName: result.scientificName, summary: result.summary, facts: result.facts,
      rarity: result.rarity, confidence: result.confidence)
  }

  /// Whether no field is known yet.
  public var isEmpty: Bool { self == PartialScanResult() }

  /// How many fields are known.
  public var knownFieldCount: Int {
    [
      commonName != nil, category != nil, scientificName != nil, summary != nil, facts != nil,
      rarity != nil, confidence != nil,
    ].filter { $0 }.count
  }

  /// Whether `self` keeps every field `earlier` knew, with the same value: what "partial
  /// results only grow" means.
  public func extends(_ earlier: PartialScanResult) -> Bool {
    func keeps<Value: Equatable>(_ path: KeyPath<PartialScanResult, Value?>) -> Bool {
      earlier[keyPath: path] == nil || earlier[keyPath: path] == self[keyPath: path]
    }
    return keeps(\.commonName) && keeps(\.category) && keeps(\.scientificName)
      && keeps(\.summary) && keeps(\.facts) && keeps(\.rarity) && keeps(\.confidence)
  }

  /// The entry with the fields known so far and ``ScanResult``'s defaults for the others, for
  /// showing a preview with the views that show entries.
  public var preview: ScanResult {
    ScanResult(
      commonName: commonName ?? "", category: category ?? "",
      scientificName: scientificName ?? "", summary: summary ?? "", facts: facts ?? [],
      rarity: rarity ?? DexRarity.common.rawValue, confidence: confidence ?? 0)
  }
}
