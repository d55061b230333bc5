extension DexCategory {
  /// Whether `string` is a placeholder that says no category was given ("N/A", "n/a", "none",
  /// "unknown", "-", "null", "?"): such a string is ``unknown`` in every matching path, rather
  /// than whatever its letters happen to match ("N/A" read as the words "n" and "a" once matched
  /// vitamin A, a food).
  static func isPlaceholder(_ string: String) -> Bool {
    var letters = ""
    for scalar in string.lowercased().unicodeScalars
    where scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
      letters.unicodeScalars.append(scalar)
      if letters.unicodeScalars.count > 16 { return false }
    }
    return placeholders.contains(letters)
  }

  /// Placeholders with everything but letters and digits removed ("n/a" is "na", "-" is "").
  private static let placeholders: Set<String> = [
    "", "na", "nan", "none", "nil", "null", "unknown", "unknowncategory", "undefined",
    "notapplicable",
    "notavailable", "nothing", "unidentified", "unsure", "notsure", "tbd", "notknown", "nocategory",
  ]
}
