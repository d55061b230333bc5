/// Upper bounds that keep hostile or absurd input from exhausting memory or time.
///
/// Checked against the header before any pixel buffer is allocated: a file claiming
/// 100000 x 100000 pixels is refused with ``ImagingError/imageTooLarge(width:height:maximumPixelCount:)``,
/// a 100 000 000 x 1 strip with ``ImagingError/dimensionTooLarge(width:height:maximumDimension:)``, and
/// a progressive JPEG whose coefficient buffer would outgrow ``maximumMemoryByteCount`` with
/// ``ImagingError/decodingMemoryTooLarge(byteCount:maximumByteCount:)``.
public struct DecodingLimits: Sendable, Hashable {
  /// The largest side any format can have here: JPEG's own limit, applied to PNG too.
  public static let largestDimension = 65_535

  /// Largest accepted `width * height` of the stored image (default 100 megapixels).
  public var maximumPixelCount: Int
  /// Largest accepted input size in bytes (default 100 MiB).
  public var maximumByteCount: Int
  /// Largest accepted width or height of the stored image (default and at most
  /// ``largestDimension``, 65 535): a long, thin image would otherwise need rows of hundreds of
  /// megabytes, or a resampler window as tall as the image.
  public var maximumDimension: Int
  /// Largest whole-image buffer a decode may allocate before its first output row (default
  /// 256 MiB): a progressive or multi-scan JPEG keeps every DCT coefficient (128 bytes per 8 x 8
  /// block and component, so 300 MB for a 100 MP 4:2:0 photo and 800 MB for a 100 MP CMYK one),
  /// an interlaced PNG every pixel (4 bytes each), HEIF and AVIF their planes and an RGB copy at
  /// full size (4.5 bytes a pixel for 8-bit, so about 220 MB for a 48 MP photo, plus every
  /// input of an overlay), a lossless or animated WebP its whole ARGB picture (twice for an
  /// animation). Baseline JPEGs, non-interlaced PNGs and lossy WebPs stream and stay far below
  /// it.
  public var maximumMemoryByteCount: Int
  /// Most items a HEIF or AVIF file may hold, and most tiles its grid may have (default 1 024):
  /// a 12 MP iPhone photo has about 50 items and 48 tiles, a 100 MP image in 512-pixel tiles
  /// about 400. Beyond it the file is refused before any tile is decoded. It becomes libheif's
  /// own item and tile limits, with ``maximumPixelCount`` and ``maximumMemoryByteCount``.
  public var maximumItemCount: Int

  /// Creates limits; the defaults suit phone and camera photos.
  public init(
    maximumPixelCount: Int = 100_000_000, maximumByteCount: Int = 100 * 1024 * 1024,
    maximumDimension: Int = DecodingLimits.largestDimension,
    maximumMemoryByteCount: Int = 256 << 20,
    maximumItemCount: Int = 1024
  ) {
    self.maximumPixelCount = maximumPixelCount
    self.maximumByteCount = maximumByteCount
    self.maximumDimension = maximumDimension
    self.maximumMemoryByteCount = maximumMemoryByteCount
    self.maximumItemCount = maximumItemCount
  }

  /// 100 megapixels, 100 MiB of input, 65 535 pixels a side, 256 MiB of decode buffers and
  /// 1 024 HEIF items.
  public static let `default` = DecodingLimits()

  /// ``maximumDimension`` within `1...largestDimension`.
  var effectiveMaximumDimension: Int { maximumDimension.clamped(to: 1...Self.largestDimension) }
}
