/// The EXIF / TIFF orientation of stored pixels, named like `CGImagePropertyOrientation`.
///
/// The raw value is the EXIF tag value 1...8. DexImaging applies it while decoding, so every
/// ``RGBImage`` and every JPEG it produces is ``up`` and carries no orientation tag.
public enum ImageOrientation: UInt8, Sendable, Hashable, CaseIterable, Codable {
  /// 1: stored upright.
  case up = 1
  /// 2: mirrored left to right.
  case upMirrored = 2
  /// 3: rotated 180 degrees.
  case down = 3
  /// 4: mirrored top to bottom.
  case downMirrored = 4
  /// 5: transposed (mirrored across the top-left to bottom-right diagonal).
  case leftMirrored = 5
  /// 6: must be rotated 90 degrees clockwise to display (typical portrait phone photo).
  case right = 6
  /// 7: transversed (mirrored across the top-right to bottom-left diagonal).
  case rightMirrored = 7
  /// 8: must be rotated 90 degrees counter-clockwise to display.
  case left = 8

  /// Whether applying the orientation swaps width and height (values 5...8).
  public var swapsDimensions: Bool { rawValue >= 5 }
}
