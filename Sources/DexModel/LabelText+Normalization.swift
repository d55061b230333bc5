import Foundation

/// The label normalisation ``DexKeywordMatcher`` applies when it has a lexicon.
extension LabelText {
  /// An identifier in camelCase split into words ("iceLolly" → "ice Lolly"): only a label
  /// without spaces that starts in lower case, and only after two lower-case letters or more,
  /// so names ("McDonald", "PlayStation", "iPod") keep their spelling.
  static func splittingCamelCase(_ label: String) -> String {
    guard let first = label.unicodeScalars.first, CharacterSet.lowercaseLetters.contains(first),
      !label.unicodeScalars.contains(where: { CharacterSet.whitespaces.contains($0) })
    else { return label }
    var result = String.UnicodeScalarView()
    var lowerRun = 0
    for scalar in label.unicodeScalars {
      if CharacterSet.uppercaseLetters.contains(scalar), lowerRun >= 2 { result.append(" ") }
      result.append(scalar)
      lowerRun = CharacterSet.lowercaseLetters.contains(scalar) ? lowerRun + 1 : 0
    }
    return String(result)
  }

  /// Trailing words that say which sense of the words before them an identifier means
  /// ("crane_construction", "cricket_sport"): each of these senses is a man-made thing.
  static let objectQualifiers: Set<String> = [
    "sport", "construction", "equipment", "tool", "instrument", "machine", "machinery",
    "vehicle", "device", "appliance", "toy", "game", "furniture", "clothing", "apparel",
  ]

  /// Trailing words that add nothing ("bird_other"): dropped.
  static let emptyQualifiers: Set<String> = ["other", "others", "misc", "general", "generic"]

  /// The qualifier at the end of a multiword segment: `.object` for an object qualifier, the
  /// segment without an empty qualifier, or the segment unchanged.
  static func qualified(_ words: [Word]) -> (category: DexCategory?, words: [Word]) {
    guard words.count > 1, let last = words.last else { return (nil, words) }
    if objectQualifiers.contains(last.raw) || objectQualifiers.contains(last.singular) {
      return (.object, words)
    }
    if emptyQualifiers.contains(last.raw) { return (nil, Array(words.dropLast())) }
    return (nil, words)
  }
}
