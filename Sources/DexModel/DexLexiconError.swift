import Foundation

/// Why a lexicon could not be read (``DexLexicon/init(text:)``,
/// ``DexLexicon/init(contentsOf:)``, ``DexLexicon/loadWordNet()``).
public enum DexLexiconError: Error, Equatable, Sendable {
  /// A line is not `key<TAB>code` with a known one-letter category code; `line` counts from 1.
  case malformedLine(line: Int)
  /// DexModel's bundle has no resource of this name (a build or packaging that dropped
  /// DexModel's resources).
  case resourceMissing(name: String)
  /// The file of this name could not be read, or is not UTF-8 text.
  case unreadableFile(name: String, reason: String)
  /// The file of this name holds no entry: empty, or cut short before its first entry.
  case noEntries(name: String)
}

extension DexLexiconError: CustomStringConvertible {
  /// The reason, for logs.
  public var description: String {
    switch self {
    case .malformedLine(let line):
      "lexicon line \(line) is not `key<TAB>code` with a known category code"
    case .resourceMissing(let name):
      "DexModel's bundle has no lexicon resource \(name)"
    case .unreadableFile(let name, let reason):
      "lexicon file \(name) could not be read: \(reason)"
    case .noEntries(let name):
      "lexicon file \(name) holds no entry"
    }
  }
}

extension DexLexiconError: LocalizedError {
  /// The same text as ``description``, so `localizedDescription` says what went wrong.
  public var errorDescription: String? { description }
}
