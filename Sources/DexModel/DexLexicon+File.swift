import Foundation

extension DexLexicon {
  /// Reads a lexicon file in the text format of ``init(text:)``, as `Scripts/wordnet-lexicon.py`
  /// writes it.
  ///
  /// - Throws: ``DexLexiconError/unreadableFile(name:reason:)`` when the file cannot be read
  ///   or is not UTF-8, ``DexLexiconError/noEntries(name:)`` when it holds no entry (an empty
  ///   or truncated file), ``DexLexiconError/malformedLine(line:)`` for a line that is not an
  ///   entry.
  public init(contentsOf url: URL) throws(DexLexiconError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw .unreadableFile(name: url.lastPathComponent, reason: Self.reason(error))
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw .unreadableFile(name: url.lastPathComponent, reason: "not UTF-8 text")
    }
    try self.init(text: text)
    guard !isEmpty else { throw .noEntries(name: url.lastPathComponent) }
  }

  /// A short reason for a failed read, without the file's path.
  private static func reason(_ error: any Error) -> String {
    let nsError = error as NSError
    if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError {
      return "no such file"
    }
    return "\(nsError.domain) error \(nsError.code)"
  }
}
