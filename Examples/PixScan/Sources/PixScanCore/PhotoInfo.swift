/// What the delete queue's enlarged preview shows of one photo: the file's size and time, and
/// the picture's upright dimensions.
///
/// DexImaging does not expose EXIF dates, so the time is the file's modification time.
public struct PhotoInfo: Sendable, Hashable, Codable {
  /// The photo (path, size, modification time).
  public var photo: Photo
  /// The upright width in pixels (EXIF orientation applied).
  public var pixelWidth: Int
  /// The upright height in pixels.
  public var pixelHeight: Int
  /// The format it was decoded as (`jpeg`, `png`, ...).
  public var format: String

  /// Creates the description.
  public init(photo: Photo, pixelWidth: Int, pixelHeight: Int, format: String) {
    self.photo = photo
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
    self.format = format
  }
}
