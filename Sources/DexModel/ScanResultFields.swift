import Foundation

/// Layer 3 of ``ScanResult/init(jsonString:)``: picks each field out of a JSON object
/// tolerantly, accepting key spellings and value shapes that models produce.
struct ScanResultFields {
  /// Members keyed by their normalized key (lower-case letters and digits only), so that
  /// `commonName`, `common_name` and `Common Name` are the same key.
  private let members: [String: JSONValue]

  init(_ raw: [String: JSONValue]) {
    var normalized: [String: JSONValue] = [:]
    for (key, value) in raw {
      let folded = Self.normalizedKey(key)
      // Keep the first non-null spelling when a reply repeats a key in two styles.
      if let existing = normalized[folded], existing != .null { continue }
      normalized[folded] = value
    }
    members = normalized
  }

  static func normalizedKey(_ key: String) -> String {
    String(
      String.UnicodeScalarView(
        key.lowercased().unicodeScalars.filter {
          CharacterSet.alphanumerics.contains($0)
        }))
  }

  static let commonNameKeys = ["commonname", "name", "common", "displayname", "title"]
  static let categoryKeys = ["category", "dexcategory", "kind", "group"]
  static let scientificNameKeys = [
    "scientificname", "latinname", "binomialname", "binomial", "scientific", "taxon",
  ]
  static let summaryKeys = ["summary", "description", "desc", "overview", "about"]
  static let factsKeys = ["facts", "funfacts", "fieldnotes", "fact", "trivia", "notes"]
  static let rarityKeys = ["rarity", "raritylevel", "rareness"]
  static let confidenceKeys = [
    "confidence", "confidencescore", "certainty", "probability", "score",
  ]

  /// Every key that marks an object as a (possibly partial) entry.
  static let entryKeys = Set(
    commonNameKeys + categoryKeys + scientificNameKeys + summaryKeys + factsKeys + rarityKeys
      + confidenceKeys)

  /// Whether the object carries a name-like key, the one field an entry cannot do without.
  var hasNameKey: Bool { Self.commonNameKeys.contains { members[$0] != nil } }

  /// Whether any member is an entry field.
  var hasEntryKey: Bool { members.keys.contains { Self.entryKeys.contains($0) } }

  func value(_ key: String) -> JSONValue? { members[key] }

  /// How long each field may be: far beyond any real entry (a model asked for "2-3 sentences"
  /// and "3 short facts"), and short enough that a reply of megabytes in one field is neither
  /// saved nor matched against the category words (whose matching grows with the square of a
  /// word's length).
  enum Limits {
    static let nameCharacters = 200
    static let categoryCharacters = 64
    static let summaryCharacters = 4_000
    static let factCount = 20
    static let factCharacters = 500
    /// What an imported entry keeps of a user's notes and of the text read from its photo.
    static let notesCharacters = 100_000
    static let recognizedTextCharacters = 100_000

    /// `text` cut to `limit` characters, with "…" when it was longer.
    static func cut(_ text: String, to limit: Int) -> String {
      guard text.count > limit else { return text }
      return String(text.prefix(limit - 1)) + "…"
    }
  }

  // MARK: Fields

  /// The first usable text among `keys`, trimmed; `""` when none.
  func text(for keys: [String]) -> String {
    for key in keys {
      if let text = members[key].flatMap(Self.text(of:)), !text.isEmpty { return text }
    }
    return ""
  }

  static func text(of value: JSONValue) -> String? {
    switch value {
    case .string(let string):
      return string.trimmingCharacters(in: trimmedCharacters)
    case .number(let number):
      return number.rounded() == number && abs(number) < 1e15
        ? String(Int64(number)) : String(number)
    case .array(let elements):
      let parts = elements.compactMap(text(of:)).filter { !$0.isEmpty }
      return parts.isEmpty ? nil : parts.joined(separator: ", ")
    case .null, .bool, .object:
      return nil
    }
  }

  /// Whitespace plus markdown emphasis a model may wrap a name in (`**Fox**`, `_Vulpes_`).
  private static let trimmedCharacters = CharacterSet.whitespacesAndNewlines
    .union(CharacterSet(charactersIn: "*_`\u{FEFF}"))

  /// Facts from an array, or from one string split into its lines and bullets.
  func facts() -> [String] {
    for key in Self.factsKeys {
      switch members[key] {
      case .array(let elements)?:
        return elements.compactMap { element in
          guard let text = Self.text(of: element) else { return nil }
          let cleaned = Self.strippingBullet(text)
          return cleaned.isEmpty ? nil : cleaned
        }
      case .string(let string)?:
        return string.split(whereSeparator: \.isNewline)
          .map { Self.strippingBullet(String($0)) }
          .filter { !$0.isEmpty }
      default:
        continue
      }
    }
    return []
  }

  /// Removes a leading list marker ("- ", "• ", "* ", "1. ", "2) ").
  static func strippingBullet(_ line: String) -> String {
    var text = Substring(line.trimmingCharacters(in: .whitespaces))
    if let first = text.first, "-•*–·".contains(first) {
      text = text.dropFirst()
    } else {
      let digits = text.prefix(while: \.isNumber)
      let rest = text.dropFirst(digits.count)
      if !digits.isEmpty, digits.count <= 2, let marker = rest.first,
        marker == "." || marker == ")",
        rest.dropFirst().first?.isWhitespace ?? false
      {
        text = rest.dropFirst()
      }
    }
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The rarity normalized to a ``DexRarity`` raw value; `Common` when unreadable.
  func rarity() -> String {
    let raw = text(for: Self.rarityKeys)
    return (DexRarity(matching: raw) ?? .common).rawValue
  }

  /// The confidence in `0...1`: a fraction, a percentage (`87`, `"87%"`) or a word.
  func confidence() -> Double {
    for key in Self.confidenceKeys {
      guard let value = members[key] else { continue }
      switch value {
      case .number(let number):
        return Self.unitConfidence(number, isPercent: false)
      case .string(let string):
        if let number = Self.confidence(from: string) { return number }
      default:
        continue
      }
    }
    return 0
  }

  static func confidence(from string: String) -> Double? {
    let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    let isPercent = trimmed.hasSuffix("%")
    let numeric =
      isPercent ? String(trimmed.dropLast()).trimmingCharacters(in: .whitespaces) : trimmed
    if let number = Double(numeric) { return unitConfidence(number, isPercent: isPercent) }
    switch trimmed {
    case "very high", "certain": return 0.95
    case "high": return 0.85
    case "medium", "moderate": return 0.6
    case "low": return 0.3
    case "very low": return 0.1
    default: return nil
    }
  }

  /// Values above 1 are read as percentages (0–100); the result is clamped to `0...1`.
  static func unitConfidence(_ number: Double, isPercent: Bool) -> Double {
    guard number.isFinite else { return 0 }
    let fraction = isPercent || number > 1 ? number / 100 : number
    return min(max(fraction, 0), 1)
  }
}
