/// A photo with what has been done to it: one row of the photo listing, the delete queue and
/// the upcoming cards.
public struct PhotoStatus: Sendable, Hashable, Codable {
  /// The photo.
  public var photo: Photo
  /// Its decision, `nil` when not decided yet.
  public var decision: Decision?
  /// Whether its text has been recognised.
  public var hasText: Bool

  /// Creates a status.
  public init(photo: Photo, decision: Decision?, hasText: Bool) {
    self.photo = photo
    self.decision = decision
    self.hasText = hasText
  }
}
