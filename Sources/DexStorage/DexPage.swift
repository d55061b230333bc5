import DexModel

/// One page of a newest-first listing: the entries and the cursor for the next page, so a grid
/// can load more as the user scrolls.
public struct DexPage: Sendable, Equatable {
  /// The entries, newest first.
  public var entries: [DexEntry]
  /// Where the next page starts, or `nil` when this page is the last.
  public var nextCursor: DexCursor?

  /// Creates a page; stores build these, custom ``DexStoring`` conformances may too.
  public init(entries: [DexEntry], nextCursor: DexCursor?) {
    self.entries = entries
    self.nextCursor = nextCursor
  }
}
