import DexImaging

/// What the delete queue's enlarged preview shows of one photo: the file's size, the picture's
/// upright dimensions, and when it was taken.
///
/// The date is the photo's EXIF date (DateTimeOriginal, else DateTime) when it has one (JPEG,
/// PNG, WebP, HEIC and AVIF carry it), read by DexImaging on the decode that measures the
/// dimensions; without it the page shows the file's modification time and says so.
public struct PhotoInfo: Sendable, Hashable, Codable {
  /// The photo (path, size, modification time).
  public var photo: Photo
  /// The upright width in pixels (EXIF orientation applied).
  public var pixelWidth: Int
  /// The upright height in pixels.
  public var pixelHeight: Int
  /// The format it was decoded as (`jpeg`, `png`, ...).
  public var format: String
  /// The date the photo's EXIF states, as written (the camera's local time); `nil` when it has
  /// none or it is malformed.
  public var exifDate: EXIFDate?

  /// Creates the description.
  public init(
    photo: Photo, pixelWidth: Int, pixelHeight: Int, format: String, exifDate: EXIFDate? = nil
  ) {
    self.exifDate = exifDate
    self.photo = photo
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
    self.format = format
  }
}
