/// The parsed entries of a ``DexLexicon`` and the look-ups the matcher makes in them: immutable
/// once built, so one table is shared by every copy of a lexicon and every thread (a class, so
/// that handing it out copies one reference).
final class LexiconTable: Sendable {
  /// Folded word or phrase → category.
  let entries: [String: DexCategory]
  /// Folded last word → category of the multiword names ending in it.
  let heads: [String: DexCategory]

  static let empty = LexiconTable(entries: [:], heads: [:])

  init(entries: [String: DexCategory], heads: [String: DexCategory]) {
    self.entries = entries
    self.heads = heads
  }

  /// The entry for exactly these words, the last one as written or singular.
  func exactCategory(of words: ArraySlice<LabelText.Word>) -> DexCategory? {
    guard let last = words.last else { return nil }
    let head = words.dropLast().map(\.raw)
    if let category = entries[(head + [last.raw]).joined(separator: " ")] { return category }
    guard last.singular != last.raw else { return nil }
    return entries[(head + [last.singular]).joined(separator: " ")]
  }

  /// For a multiword label that is no entry: its longest known ending ("red sea urchin" → "sea
  /// urchin"); for the last word alone, the compound head first ("Australian shepherd").
  func fallbackCategory(of words: [LabelText.Word]) -> DexCategory? {
    guard words.count > 1 else { return nil }
    for start in 1..<words.count {
      if start == words.count - 1, let last = words.last,
        let category = heads[last.raw] ?? heads[last.singular]
      {
        return category
      }
      if let category = exactCategory(of: words[start...]) { return category }
    }
    return nil
  }

  /// A one-word segment that is no entry but splits into a two-word entry ("fishtank" → "fish
  /// tank"); any other segment unchanged.
  func splittingClosedCompound(_ words: [LabelText.Word]) -> [LabelText.Word] {
    guard words.count == 1, let word = words.first, exactCategory(of: words[...]) == nil
    else { return words }
    let scalars = Array(word.raw.unicodeScalars)
    guard scalars.count >= 6 else { return words }
    for cut in 3...(scalars.count - 3) {
      var left = String.UnicodeScalarView()
      left.append(contentsOf: scalars[..<cut])
      var right = String.UnicodeScalarView()
      right.append(contentsOf: scalars[cut...])
      let (first, second) = (String(left), String(right))
      let split = [
        LabelText.Word(raw: first, singular: first),
        LabelText.Word(raw: second, singular: LabelText.singular(second)),
      ]
      if exactCategory(of: split[...]) != nil { return split }
    }
    return words
  }

  /// The category of one label by this table alone (see ``DexLexicon/category(for:)``).
  func category(for label: String) -> DexCategory? {
    for segment in LabelText(LabelText.splittingCamelCase(label)).segments {
      let words = splittingClosedCompound(segment)
      if let category = exactCategory(of: words[...]) ?? fallbackCategory(of: words) {
        if category != .unknown { return category }
      }
    }
    return nil
  }
}
