/// The size ``ImageDecoding/decodePixels(from:target:options:)`` decodes to. Sizes always refer to
/// the upright image (after EXIF orientation), never upscale, and keep the aspect ratio.
public enum PixelTarget: Sendable, Hashable {
  /// Longest side at most `maximumDimension`: the image is DCT-scaled on load, then Lanczos-3
  /// resampled to exactly `maximumDimension` on the long side and
  /// `max(1, round(short * maximumDimension / long))` on the short side (half rounds up).
  case fitting(maximumDimension: Int)
  /// The cheapest decode whose short side is at least `shortSide` (or the whole image when it
  /// is smaller). JPEG uses libjpeg's DCT scaling alone (1/8, 1/4, 1/2 or 1), so the short side
  /// lands in `shortSide ..< 2 * shortSide`; PNG, which has no shrink-on-load, is Lanczos-3
  /// resampled to exactly `shortSide` on the short side. Meant for classifiers that centre-crop
  /// and resample themselves.
  case minimumShortSide(Int)
  /// The full stored resolution, upright.
  case original
}
