import Foundation

extension DexLexicon {
  /// DexKit's lexicon, from WordNet 3.0's nouns (about 57,000 entries; WordNet 3.0 licence,
  /// notice in the resource `Lexicon/WordNetLexicon.LICENSE`), which
  /// ``DexKeywordMatcher/standard`` consults.
  ///
  /// Creating it costs nothing: its 0.85 MB resource is read from DexModel's bundle on the
  /// first look-up (the first label a matcher with this lexicon places, other than a
  /// category's own name, or ``count``), once per process, however many threads ask. If the
  /// resource is missing or malformed, this lexicon is empty and matchers place labels by their
  /// keywords alone; call ``loadWordNet()`` to learn whether that happened, and why.
  public static let wordNet = DexLexicon(
    storage: .deferred(
      DeferredLexiconTable {
        Result { () throws(DexLexiconError) -> LexiconTable in try bundledWordNetTable() }
      }))

  /// Reads ``wordNet`` now, if no look-up has yet, and returns it with its entries in memory,
  /// or says why the bundled resource could not be read, in which case ``wordNet`` is empty.
  ///
  /// A host calls this at start-up to pay the one-off read (about 20 ms) before the first scan
  /// and to report a broken installation; it never reads the resource twice.
  ///
  /// - Throws: ``DexLexiconError/resourceMissing(name:)`` when DexModel's bundle lacks the
  ///   resource, ``DexLexiconError/unreadableFile(name:reason:)`` or
  ///   ``DexLexiconError/noEntries(name:)`` when it cannot be read or holds no entry, and
  ///   ``DexLexiconError/malformedLine(line:)`` when it is corrupt.
  public static func loadWordNet() throws(DexLexiconError) -> DexLexicon {
    try wordNet.loaded()
  }

  private static func bundledWordNetTable() throws(DexLexiconError) -> LexiconTable {
    guard
      let url = Bundle.module.url(
        forResource: "WordNetLexicon", withExtension: "txt", subdirectory: "Lexicon")
    else { throw .resourceMissing(name: "Lexicon/WordNetLexicon.txt") }
    return try DexLexicon(contentsOf: url).table
  }
}
