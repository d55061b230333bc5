/// The sizes PixScan serves a photo at, each downscaled once by DexImaging and cached.
public enum ThumbnailSize: String, Sendable, Hashable, Codable, CaseIterable {
  /// 256 pixels on the long side: the delete queue's previews.
  case small
  /// 1024 pixels: the triage card, and what the page prefetches for the next photos.
  case card
  /// 2048 pixels: the full-screen viewer.
  case full

  /// The longest side, in pixels.
  public var maximumDimension: Int {
    switch self {
    case .small: 256
    case .card: 1024
    case .full: 2048
    }
  }
}
