import Foundation

/// A ``LexiconTable`` read on first use, exactly once however many threads ask at once, and
/// kept (with the error, when reading failed) for the life of the object.
///
/// Lets ``DexLexicon/wordNet`` and ``DexKeywordMatcher/standard`` be created for free: the
/// 0.85 MB resource is parsed only when a label first needs it, and never by a host that
/// matches no label (a classifier whose label table names every category).
final class DeferredLexiconTable: @unchecked Sendable {
  // `outcome` is written once, under `lock`; `load` is immutable.
  private let lock = NSLock()
  private let load: @Sendable () -> Result<LexiconTable, DexLexiconError>
  private var outcome: Result<LexiconTable, DexLexiconError>?

  init(_ load: @escaping @Sendable () -> Result<LexiconTable, DexLexiconError>) {
    self.load = load
  }

  /// The table or the reason it could not be read; the first call reads it.
  var result: Result<LexiconTable, DexLexiconError> {
    lock.lock()
    defer { lock.unlock() }
    if let outcome { return outcome }
    let loaded = load()
    outcome = loaded
    return loaded
  }

  /// Whether the table has been read (successfully or not).
  var isLoaded: Bool {
    lock.lock()
    defer { lock.unlock() }
    return outcome != nil
  }
}
