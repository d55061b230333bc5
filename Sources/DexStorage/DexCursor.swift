import DexModel
import Foundation

/// An opaque position in a newest-first listing, used to ask for the next page.
///
/// Keyset paging (date, then id) stays fast at any depth and never skips or repeats entries
/// when new ones are inserted while a user scrolls, unlike limit/offset.
public struct DexCursor: Sendable, Hashable, Codable {
  /// The discovery date of the last entry on the previous page.
  package let dateDiscovered: Date
  /// The id of the last entry on the previous page, the tie-breaker for equal dates.
  package let id: String

  init(dateDiscovered: Date, id: String) {
    self.dateDiscovered = dateDiscovered
    self.id = id
  }

  /// The position just after `entry`, for callers that keep their own list.
  public init(after entry: DexEntry) {
    self.init(dateDiscovered: entry.dateDiscovered, id: entry.id)
  }
}
