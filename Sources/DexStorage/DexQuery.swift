import DexModel

/// Which entries a listing, count or observation is about.
///
/// An empty query means "everything, newest first". A category and a text search combine with
/// AND; the text matches word prefixes in the common name, scientific name, summary, facts and
/// the text read from the photo, ignoring case and diacritics ("clown" finds "Clownfish",
/// "eleve" finds "Élevé").
public struct DexQuery: Sendable, Hashable {
  /// The page size used when none is given: one grid screen and a bit.
  public static let defaultLimit = 50
  /// The largest page a single call returns.
  public static let maximumLimit = 1_000

  /// Only entries of this category, or all when `nil`.
  public var category: DexCategory?
  /// Words that must all appear (as word prefixes), or no text filter when `nil` or blank.
  public var text: String?
  /// How many entries a page holds, clamped to `1...maximumLimit`.
  public var limit: Int {
    get { storedLimit }
    set { storedLimit = min(max(newValue, 1), Self.maximumLimit) }
  }
  private var storedLimit: Int

  /// Creates a query.
  public init(category: DexCategory? = nil, text: String? = nil, limit: Int = Self.defaultLimit) {
    self.category = category
    self.text = text
    self.storedLimit = min(max(limit, 1), Self.maximumLimit)
  }

  /// The search words: letters and digits only, at most 16 words of at most 64 characters.
  ///
  /// `nil` means no text filter; an empty array means the text had no searchable word, which
  /// matches nothing.
  package var searchTerms: [String]? {
    guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
    let words =
      text
      .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
      .prefix(16)
      .map { String($0.prefix(64)) }
    return words
  }
}
