/// The compiled form of ``DexKeywordMatcher``'s rules: whole-word and phrase keywords indexed
/// by word, substring keywords kept as byte patterns.
struct KeywordIndex: Sendable {
  enum Kind: Sendable {
    case substring, word, phrase, weak
  }

  struct Keyword: Sendable {
    let category: DexCategory
    let kind: Kind
    /// The singularized words of the keyword.
    let words: [String]
    /// The singular form as UTF-8 bytes (substring keywords).
    let pattern: [UInt8]
    /// The keyword as written, folded, as UTF-8 bytes (substring keywords).
    let rawPattern: [UInt8]
    /// Characters in the keyword, for "longest wins".
    let length: Int
    /// The rule's position, for ties.
    let rule: Int
  }

  private var byFirstWord: [String: [Keyword]] = [:]
  private var substrings: [Keyword] = []

  init(rules: [DexKeywordMatcher.Rule]) {
    var seen = Set<String>()
    for (position, rule) in rules.enumerated() {
      for spelled in rule.keywords {
        var text = Substring(spelled)
        var kind = Kind.substring
        if text.hasPrefix("=") {
          kind = .word
          text = text.dropFirst()
        } else if text.hasPrefix("~") {
          kind = .weak
          text = text.dropFirst()
        }
        let words = LabelText(String(text)).segments.flatMap { $0 }
        guard let first = words.first else { continue }
        if words.count > 1 {
          kind = kind == .weak ? .weak : .phrase
        } else if kind == .substring, first.raw.count <= 3 {
          kind = .word
        }
        // The first rule to claim a keyword owns it (host rules are inserted first).
        let key = words.map(\.singular).joined(separator: " ")
        guard seen.insert(key + "|\(kind)").inserted else { continue }
        let keyword = Keyword(
          category: rule.category, kind: kind, words: words.map(\.singular),
          pattern: Array(first.singular.utf8), rawPattern: Array(first.raw.utf8),
          length: words.map(\.raw.count).reduce(words.count - 1, +), rule: position)
        if kind == .substring {
          substrings.append(keyword)
        } else {
          byFirstWord[first.singular, default: []].append(keyword)
        }
      }
    }
  }

  /// Where one keyword matched in a segment.
  private struct Match {
    let keyword: Keyword
    let endWord: Int
    let endCharacter: Int

    var category: DexCategory { keyword.category }
    var isWeak: Bool { keyword.kind == .weak }

    func beats(_ other: Match) -> Bool {
      if endWord != other.endWord { return endWord > other.endWord }
      if endCharacter != other.endCharacter { return endCharacter > other.endCharacter }
      if keyword.length != other.keyword.length { return keyword.length > other.keyword.length }
      return keyword.rule < other.keyword.rule
    }
  }

  /// The winning category among all keyword matches in one segment of a label.
  func bestCategory(in segment: [LabelText.Word]) -> DexCategory? {
    // A winning people-or-scenery word means "nothing collectable here": no category.
    guard let winner = bestMatch(in: segment), winner != .unknown else { return nil }
    return winner
  }

  /// The winning category, ``DexCategory/unknown`` when a people-or-scenery word wins, or `nil`
  /// when no keyword matches.
  func bestMatch(in segment: [LabelText.Word]) -> DexCategory? {
    var best: Match?
    var bestWeak: Match?
    func consider(_ match: Match) {
      if match.category == .pokemon, !match.isWeak {
        best = match  // Pokémon wins outright; later candidates cannot displace it.
        return
      }
      if best?.category == .pokemon { return }
      if match.isWeak {
        if bestWeak.map({ match.beats($0) }) ?? true { bestWeak = match }
      } else if best.map({ match.beats($0) }) ?? true {
        best = match
      }
    }
    for (position, word) in segment.enumerated() {
      // Whole words and phrases starting here.
      for candidate in [word.singular, word.raw] {
        for keyword in byFirstWord[candidate] ?? [] {
          let end = position + keyword.words.count - 1
          guard end < segment.count else { continue }
          let matches = zip(keyword.words, segment[position...end]).allSatisfy { expected, actual in
            expected == actual.singular || expected == actual.raw
          }
          guard matches else { continue }
          consider(
            Match(keyword: keyword, endWord: end, endCharacter: segment[end].singular.utf8.count))
        }
        if word.singular == word.raw { break }
      }
      // Substrings inside this word.
      let singular = Array(word.singular.utf8)
      let raw = Array(word.raw.utf8)
      for keyword in substrings {
        guard
          let end = Self.lastEnd(of: keyword.pattern, in: singular)
            ?? Self.lastEnd(of: keyword.rawPattern, in: raw)
        else { continue }
        consider(Match(keyword: keyword, endWord: position, endCharacter: end))
      }
    }
    return (best ?? bestWeak)?.category
  }

  /// The end offset of the last occurrence of `pattern` in `text`.
  static func lastEnd(of pattern: [UInt8], in text: [UInt8]) -> Int? {
    guard !pattern.isEmpty, pattern.count <= text.count else { return nil }
    var start = text.count - pattern.count
    while start >= 0 {
      if text[start] == pattern[0] {
        var offset = 1
        while offset < pattern.count, text[start + offset] == pattern[offset] { offset += 1 }
        if offset == pattern.count { return start + pattern.count }
      }
      start -= 1
    }
    return nil
  }
}
