/// What the user decided about a photo.
public enum Decision: String, Sendable, Hashable, Codable, CaseIterable {
  /// Swiped right (or up): the photo stays.
  case keep
  /// Swiped left (or down): the photo waits in the delete queue.
  case queue
  /// The queue was emptied: the photo is in the freedesktop trash.
  case trashed
}
