import Foundation

/// Turns a photo's bytes into one upright, downscaled JPEG that every later step reuses.
///
/// This is pass 0 of the scan flow. ``ImageDownscaler`` is the libjpeg-turbo / libpng
/// conformance; hosts with a platform codec (ImageIO on Apple platforms) can conform their own
/// type and hand it to the rest of DexKit.
///
/// Conformances must be safe to call concurrently from many tasks.
public protocol ImageDownscaling: Sendable {
  /// Decodes `imageData` (format sniffed from magic bytes), applies its EXIF orientation,
  /// shrinks it to fit ``DownscaleOptions/maximumDimension`` without upscaling, and encodes a JPEG.
  ///
  /// - Throws: ``ImagingError``.
  func downscale(
    _ imageData: Data, options: DownscaleOptions
  ) throws(ImagingError) -> DownscaledImage
}

extension ImageDownscaling {
  /// The reference app's call: an upright JPEG whose longest side is at most `maximumDimension`.
  ///
  /// - Parameters:
  ///   - data: JPEG, PNG, HEIF (HEIC), AVIF or WebP bytes.
  ///   - maximumDimension: Longest side of the output in pixels; smaller images keep their size.
  ///   - quality: JPEG quality 0...1 as in ImageIO (0.8 by default).
  /// - Throws: ``ImagingError``.
  public func downscaledJPEG(
    from data: Data, maximumDimension: Int, quality: Double = 0.8
  ) throws(ImagingError) -> Data {
    try downscale(
      data, options: DownscaleOptions(maximumDimension: maximumDimension, quality: quality)
    )
    .jpegData
  }
}
