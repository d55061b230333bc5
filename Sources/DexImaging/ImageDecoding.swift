import Foundation

/// Decodes a photo straight to upright RGB8 pixels at a requested size, with no JPEG round trip.
///
/// The local classifier uses this: it asks for ``PixelTarget/minimumShortSide(_:)`` and does its
/// own centre crop and resample. ``ImageDownscaler`` conforms; hosts can bring their own.
public protocol ImageDecoding: Sendable {
  /// Decodes `imageData` to upright RGB8 at `target` size.
  ///
  /// - Throws: ``ImagingError``.
  func decodePixels(
    from imageData: Data, target: PixelTarget, options: DecodingOptions
  ) throws(ImagingError) -> RGBImage
}

extension ImageDecoding {
  /// Decodes with default ``DecodingOptions`` (100 MP limit, white background, no partial images).
  public func decodePixels(
    from imageData: Data, target: PixelTarget
  ) throws(ImagingError)
    -> RGBImage
  {
    try decodePixels(from: imageData, target: target, options: DecodingOptions())
  }
}
