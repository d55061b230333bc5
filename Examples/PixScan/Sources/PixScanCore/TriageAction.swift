/// What a swipe (or arrow key) does to the photo on the card.
public enum TriageAction: String, Sendable, Hashable, Codable, CaseIterable {
  /// Left: into the delete queue.
  case queue
  /// Right: keep.
  case keep
  /// Up: keep, and recognise its text.
  case recognizeAndKeep
  /// Down: into the delete queue at once, and recognise its text in the background (the
  /// recognised text is kept after the photo goes to the trash).
  case recognizeAndQueue

  /// The decision the action records.
  public var decision: Decision {
    switch self {
    case .keep, .recognizeAndKeep: .keep
    case .queue, .recognizeAndQueue: .queue
    }
  }

  /// Whether the action also recognises the photo's text.
  public var recognizesText: Bool { self == .recognizeAndKeep || self == .recognizeAndQueue }
}
