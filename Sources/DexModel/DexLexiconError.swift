/// Why a lexicon's text could not be read (``DexLexicon/init(text:)``).
public enum DexLexiconError: Error, Equatable, Sendable {
  /// A line is not `key<TAB>code` with a known one-letter category code; `line` counts from 1.
  case malformedLine(line: Int)
}

extension DexLexiconError: CustomStringConvertible {
  /// The reason, for logs.
  public var description: String {
    switch self {
    case .malformedLine(let line):
      "lexicon line \(line) is not `key<TAB>code` with a known category code"
    }
  }
}
