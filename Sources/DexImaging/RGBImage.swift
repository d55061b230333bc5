/// Decoded, upright 8-bit sRGB pixels: what the decoder hands to the local classifier so that it
/// never pays for a second JPEG round trip.
public struct RGBImage: Sendable, Hashable {
  /// Width in pixels.
  public let width: Int
  /// Height in pixels.
  public let height: Int
  /// Interleaved R, G, B bytes, row-major, no row padding: `width * height * 3` bytes.
  ///
  /// Read-only, so that the size the initializer checked always holds: the decoders, the
  /// classifier and the text recognizer hand these bytes to C code that reads
  /// `width * height * 3` of them. Make a new image to change the pixels.
  public private(set) var pixels: [UInt8]

  /// Creates an image; returns `nil` when `pixels` does not hold exactly `width * height * 3` bytes.
  public init?(width: Int, height: Int, pixels: [UInt8]) {
    guard width > 0, height > 0,
      case let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: 3), !rowOverflow,
      case let (count, overflow) = rowBytes.multipliedReportingOverflow(by: height),
      !overflow, count == pixels.count
    else { return nil }
    self.width = width
    self.height = height
    self.pixels = pixels
  }
}
