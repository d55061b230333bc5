/// A rectangle in an image's pixels, origin at the top-left corner.
///
/// It exists because DexImaging is portable (no CoreGraphics `CGRect` on Linux) and boxes in
/// pixels are what OCR engines report.
public struct PixelRect: Sendable, Hashable, Codable {
  /// The left edge, in pixels from the image's left.
  public var x: Int
  /// The top edge, in pixels from the image's top.
  public var y: Int
  /// The width in pixels.
  public var width: Int
  /// The height in pixels.
  public var height: Int

  /// Creates a rectangle.
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }
}
