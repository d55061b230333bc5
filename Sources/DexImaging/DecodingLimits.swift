/// Upper bounds that keep hostile or absurd input from exhausting memory.
///
/// Checked against the header before any pixel buffer is allocated: a file claiming
/// 100000 x 100000 pixels is refused with ``ImagingError/imageTooLarge(width:height:maxPixelCount:)``.
public struct DecodingLimits: Sendable, Hashable {
  /// Largest accepted `width * height` of the stored image (default 100 megapixels).
  public var maxPixelCount: Int
  /// Largest accepted input size in bytes (default 100 MiB).
  public var maxByteCount: Int

  /// Creates limits; the defaults suit phone and camera photos.
  public init(maxPixelCount: Int = 100_000_000, maxByteCount: Int = 100 * 1024 * 1024) {
    self.maxPixelCount = maxPixelCount
    self.maxByteCount = maxByteCount
  }

  /// 100 megapixels and 100 MiB.
  public static let `default` = DecodingLimits()
}
