/// Which photos the triage walks through: all of them or only screenshots.
///
/// Decisions are kept per photo, not per filter, so switching filters never shows a photo
/// already decided again.
public enum PhotoFilter: String, Sendable, Hashable, Codable, CaseIterable {
  /// Every listed photo.
  case all
  /// Only the photos ``ScreenshotRule`` counts as screenshots.
  case screenshots

  /// Whether `photo` passes the filter.
  public func includes(_ photo: Photo) -> Bool {
    switch self {
    case .all: true
    case .screenshots: photo.isScreenshot
    }
  }
}
