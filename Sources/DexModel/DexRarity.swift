import Foundation

/// How rare a discovery is, on the four-step scale the Dex shows as a pill.
///
/// ``ScanResult/rarity`` stays a `String` for compatibility with stored entries and model replies;
/// the parser normalizes it to one of these raw values, and ``ScanResult/dexRarity`` reads it back.
public enum DexRarity: String, CaseIterable, Codable, Sendable, Hashable, Comparable {
  /// Seen every day.
  case common = "Common"
  /// Takes a little luck or effort to find.
  case uncommon = "Uncommon"
  /// A notable find.
  case rare = "Rare"
  /// Once in a lifetime.
  case legendary = "Legendary"

  /// Matches free-form text case-insensitively ("RARE", " legendary ", "very rare"), or `nil`.
  public init?(matching text: String) {
    let folded = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    if let exact = DexRarity.allCases.first(where: { $0.rawValue.lowercased() == folded }) {
      self = exact
      return
    }
    // "very rare", "ultra-rare" → rare; "uncommon" must be checked before "common".
    let ordered: [DexRarity] = [.legendary, .uncommon, .rare, .common]
    guard let found = ordered.first(where: { folded.contains($0.rawValue.lowercased()) }) else {
      return nil
    }
    self = found
  }

  private var rank: Int { DexRarity.allCases.firstIndex(of: self) ?? 0 }

  /// Orders rarities from ``common`` to ``legendary``.
  public static func < (lhs: DexRarity, rhs: DexRarity) -> Bool { lhs.rank < rhs.rank }
}
