/// Decoded, upright 8-bit sRGB pixels: what the decoder hands to the local classifier so that it
/// never pays for a second JPEG round trip.
public struct RGBImage: Sendable, Hashable {
  /// Width in pixels.
  public let width: Int
  /// Height in pixels.
  public let height: Int
  /// Interleaved R, G, B bytes, row-major, no row padding: `width * height * 3` bytes.
  public var pixels: [UInt8]

  /// Creates an image; returns `nil` when `pixels` does not hold exactly `width * height * 3` bytes.
  public init?(width: Int, height: Int, pixels: [UInt8]) {
    guard width > 0, height > 0,
      case let (count, overflow) = width.multipliedReportingOverflow(by: height * 3),
      !overflow, count == pixels.count
    else { return nil }
    self.width = width
    self.height = height
    self.pixels = pixels
  }
}
