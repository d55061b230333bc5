import Foundation

/// Maps free-form labels (classifier identifiers, a cloud reply's category) onto ``DexCategory``
/// with ordered keyword heuristics, then a noun lexicon for the labels no keyword covers.
///
/// ``standard`` is what ``DexCategory/matching(_:using:)`` and
/// ``DexCategory/matching(fromLabels:using:)`` use unless given another matcher. To teach DexKit
/// new words without forking, extend the standard matcher and pass it where categories are
/// matched:
///
/// ```swift
/// var matcher = DexKeywordMatcher.standard
/// matcher.addKeywords(["axolotl", "=olm"], for: .reptile)  // your rules win ties
/// let category = result.dexCategory(using: matcher)
/// ```
///
/// How a label is matched:
/// - Labels and keywords are folded to lower-case ASCII (diacritics removed: "Pokémon" is
///   "pokemon"), apostrophes dropped, split into words at underscores, hyphens and punctuation,
///   and each word singularized ("berries" → "berry", "leaves" → "leaf", "fungi" → "fungus").
/// - Commas, semicolons, slashes and parentheses separate alternatives ("tench, Tinca tinca",
///   "Plant/Flower"); the first alternative that matches decides.
/// - A keyword of four letters or more matches inside a word ("fish" in "goldfish", "plant" in
///   "houseplant"); a shorter keyword, or one written `=word`, matches whole words only, so
///   "ant" never matches "elephant" or "pants". A keyword with spaces matches consecutive words.
///   A keyword written `~word` is weak: it counts only when nothing else matched.
/// - When several keywords match, the match ending furthest to the right wins (the head noun of
///   an English compound: "tuna sandwich" is food), then the longest ("jellyfish" beats
///   "fish"), then the earlier rule. A Pokémon keyword anywhere wins outright, so a "Pikachu
///   plush" is a Pokémon, not an object.
///
/// With a ``lexicon`` (the standard matcher has ``DexLexicon/wordNet``), each alternative of a
/// label is first normalised, then matched:
/// - camelCase identifiers are split ("iceLolly"), and a one-word label the lexicon does not
///   know but knows split in two is split ("fishtank" → "fish tank", an object);
/// - a trailing qualifier decides the sense: `_sport`, `_construction`, `_tool`, `_equipment`,
///   `_instrument`, `_vehicle` and the like make it an object ("crane_construction",
///   "cricket_sport"), `_other` is dropped ("bird_other");
/// - the keywords (host-added, then built-in) win when they match any alternative, except
///   that a keyword before a head noun the lexicon knows as an object, which no keyword
///   matches, yields to it ("cake stand", "wine rack" are objects);
/// - otherwise the lexicon's entry for a whole alternative decides ("sidewinder",
///   "bernese_mountain", "ice lolly" — a multiword entry also overrides a people-or-scenery
///   keyword such as "mountain" or "ice");
/// - otherwise, for a multiword label, its longest ending the lexicon knows ("Australian
///   shepherd" by the compound head "shepherd").
///
/// A lexicon entry for something not collectable (a person, a road) claims no category. Without
/// a lexicon, labels are matched by keywords alone, exactly as before lexicons existed.
public struct DexKeywordMatcher: DexCategoryMatching {
  /// One category and the keywords that select it, in the syntax described on
  /// ``DexKeywordMatcher``.
  public struct Rule: Hashable, Sendable {
    /// The category these keywords select.
    public var category: DexCategory
    /// The keywords: `word` (substring when four letters or more), `=word` (whole word),
    /// `two words` (phrase) or `~word` (weak).
    public var keywords: [String]

    /// Creates a rule.
    public init(category: DexCategory, keywords: [String]) {
      self.category = category
      self.keywords = keywords
    }
  }

  /// The rules in tie-breaking order: an earlier rule wins when two matches are otherwise equal.
  public private(set) var rules: [Rule]
  private var index: KeywordIndex

  /// The lexicon consulted after the keywords, or `nil` to match by keywords alone.
  public var lexicon: DexLexicon?

  /// Creates a matcher from rules (an earlier rule wins exact ties) and an optional lexicon
  /// consulted for the labels no rule matches.
  public init(rules: [Rule], lexicon: DexLexicon? = nil) {
    self.rules = rules
    self.index = KeywordIndex(rules: rules)
    self.lexicon = lexicon
  }

  /// The built-in vocabulary: broad coverage of animals, plants, fungi, minerals, foods,
  /// Pokémon and man-made objects, with the traps ("antelope", "jellyfish", "beer bottle")
  /// handled, backed by ``DexLexicon/wordNet`` for every other noun WordNet knows.
  ///
  /// Creating it does not read the lexicon: ``DexLexicon/wordNet`` is read on the first label
  /// this matcher places that is not a category's own name ("Plant", "birds"), once per
  /// process. If DexModel's lexicon resource is missing or corrupt, this matcher places labels
  /// by its keywords alone; ``DexLexicon/loadWordNet()`` tells a host whether that is so.
  public static let standard = DexKeywordMatcher(
    rules: standardGroups.map { Rule(category: $0.0, keywords: $0.1) }, lexicon: .wordNet)

  /// Adds keywords for `category` ahead of every existing rule, so they win ties with the
  /// built-in vocabulary.
  public mutating func addKeywords(_ keywords: [String], for category: DexCategory) {
    rules.insert(Rule(category: category, keywords: keywords), at: 0)
    index = KeywordIndex(rules: rules)
  }

  /// Returns a copy with keywords added ahead of every existing rule.
  public func addingKeywords(_ keywords: [String], for category: DexCategory) -> DexKeywordMatcher {
    var copy = self
    copy.addKeywords(keywords, for: category)
    return copy
  }

  /// Removes a keyword (as written in its rule) from every rule.
  public mutating func removeKeyword(_ keyword: String) {
    for position in rules.indices { rules[position].keywords.removeAll { $0 == keyword } }
    index = KeywordIndex(rules: rules)
  }

  // MARK: Matching

  /// The category whose raw value *is* the label ("Plant", "birds", "Pokémon"), ignoring
  /// ``DexCategory/unknown``; `nil` otherwise.
  public func exactCategory(for label: String) -> DexCategory? {
    exactCategory(in: LabelText(label))
  }

  /// The category the keyword heuristics give one label, or `nil` when no keyword matches
  /// (the lexicon is not consulted).
  public func keywordCategory(for label: String) -> DexCategory? {
    keywordCategory(in: LabelText(label))
  }

  /// One free-form string (a cloud reply's category): an exact raw value, else keywords (and
  /// the lexicon), else ``DexCategory/unknown``. A placeholder ("N/A", "none", "-") is
  /// ``DexCategory/unknown``.
  public func category(for string: String) -> DexCategory {
    if DexCategory.isPlaceholder(string) { return .unknown }
    let text = labelText(string)
    return exactCategory(in: text) ?? labelCategory(in: text) ?? .unknown
  }

  /// Ranked labels, highest confidence first: an exact raw value anywhere wins; otherwise the
  /// first label that keywords or the lexicon place decides; otherwise ``DexCategory/unknown``.
  /// Placeholders ("N/A", "none", "-") are skipped.
  public func category(forLabels labels: [String]) -> DexCategory {
    // Folded once, used by both passes.
    let texts = labels.filter { !DexCategory.isPlaceholder($0) }.map(labelText)
    return texts.lazy.compactMap(exactCategory(in:)).first
      ?? texts.lazy.compactMap(labelCategory(in:)).first
      ?? .unknown
  }

  private func labelText(_ label: String) -> LabelText {
    LabelText(lexicon == nil ? label : LabelText.splittingCamelCase(label))
  }

  private func exactCategory(in text: LabelText) -> DexCategory? {
    let words = text.segments.flatMap { $0 }
    guard words.count == 1, let word = words.first,
      let category = DexCategory(rawValue: word.singular) ?? DexCategory(rawValue: word.raw),
      category != .unknown
    else { return nil }
    return category
  }

  private func keywordCategory(in text: LabelText) -> DexCategory? {
    text.segments.lazy.compactMap(index.bestCategory(in:)).first
  }

  /// Keywords alone without a lexicon; with one, normalisation, then keywords over every
  /// alternative, then the lexicon's entries, then its known endings (see the type's
  /// documentation).
  private func labelCategory(in text: LabelText) -> DexCategory? {
    // The one place a deferred lexicon (``DexLexicon/wordNet``) is read.
    guard let lexicon = lexicon?.table, !lexicon.entries.isEmpty else {
      return keywordCategory(in: text)
    }
    var segments: [(words: [LabelText.Word], keyword: DexCategory?)] = []
    for segment in text.segments {
      let (qualifier, words) = LabelText.qualified(lexicon.splittingClosedCompound(segment))
      if let qualifier { return qualifier }
      segments.append((words, index.bestMatch(in: words)))
    }
    for (words, keyword) in segments {
      guard let keyword, keyword != .unknown else { continue }
      let yields = keyword != .pokemon && hasObjectHead(words, keyword: keyword, lexicon: lexicon)
      return yields ? .object : keyword
    }
    for (words, keyword) in segments where keyword == nil || words.count > 1 {
      // A multiword entry beats a people-or-scenery keyword ("bernese mountain", "ice lolly");
      // an entry for something not collectable ends the search.
      if let entry = lexicon.exactCategory(of: words[...]) {
        return entry == .unknown ? nil : entry
      }
    }
    for (words, keyword) in segments where keyword == nil {
      if let ending = lexicon.fallbackCategory(of: words) {
        return ending == .unknown ? nil : ending
      }
    }
    return nil
  }

  /// Whether `keyword` matched only before the head noun of a multiword label, a head no
  /// keyword matches and the lexicon knows as an object: "cake stand", "wine rack" (not
  /// "tiger's eye", a phrase keyword ending at the head).
  private func hasObjectHead(
    _ words: [LabelText.Word], keyword: DexCategory, lexicon: LexiconTable
  ) -> Bool {
    guard words.count > 1, let last = words.last, index.bestMatch(in: [last]) == nil,
      index.bestMatch(in: Array(words.dropLast())) == keyword
    else { return false }
    return (lexicon.exactCategory(of: words[...]) ?? lexicon.fallbackCategory(of: words))
      == .object
  }
}
