import Foundation

extension DexLexicon {
  /// DexKit's lexicon, from WordNet 3.0's nouns (about 57,000 entries; WordNet 3.0 licence,
  /// notice in the resource `Lexicon/WordNetLexicon.LICENSE`), read from DexModel's bundle on
  /// first use, once per process. Empty if the resource is missing or unreadable, so that a
  /// matcher falls back to its keywords rather than failing.
  public static let wordNet: DexLexicon = {
    guard
      let url = Bundle.module.url(
        forResource: "WordNetLexicon", withExtension: "txt", subdirectory: "Lexicon"),
      let data = try? Data(contentsOf: url),
      let lexicon = try? DexLexicon(text: String(decoding: data, as: UTF8.self))
    else { return DexLexicon() }
    return lexicon
  }()
}
