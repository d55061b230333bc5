/// Internal result of a decode path: pixels (possibly still in stored orientation) plus facts.
struct DecodedImage: Sendable {
  var image: RGBImage
  var format: ImageFormat
  var storedSize: DownscaleGeometry.Size
  var orientation: ImageOrientation
  var isPartial: Bool
  /// libjpeg scale numerator over 8 used for the decode (8 for PNG).
  var scaleNumerator: Int
  /// Whether ``image`` has had ``orientation`` applied already.
  var isUpright: Bool
  /// The EXIF date (DateTimeOriginal, else DateTime), when the decoder reads the EXIF block.
  var exifDate: EXIFDate? = nil
}

extension DownscaleGeometry {
  /// The stored-orientation size to decode to, and the libjpeg numerator to use (8 when the
  /// format has no shrink-on-load). `scaledSize` reports libjpeg's exact scaled size.
  static func plan(
    stored: Size, orientation: ImageOrientation, target: PixelTarget, gap: Double,
    supportsDCTScaling: Bool, scaledSize: (Int) -> Size
  ) -> (numerator: Int, size: Size) {
    let upright = orientation.swapsDimensions ? stored.transposed : stored
    switch target {
    case .original:
      return (8, stored)
    case .fitting(let maximumDimension):
      let goalUpright = fitting(upright, maximumDimension: maximumDimension)
      let goal = orientation.swapsDimensions ? goalUpright.transposed : goalUpright
      guard supportsDCTScaling else { return (8, goal) }
      var numerator = jpegNumerator(stored: stored, target: goal, gap: gap)
      var scaled = scaledSize(numerator)
      // libjpeg's rounding can differ from ours by a pixel; step up rather than upscale.
      while numerator < 8, scaled.width < goal.width || scaled.height < goal.height {
        numerator *= 2
        scaled = scaledSize(numerator)
      }
      return (
        numerator,
        Size(
          width: Swift.min(goal.width, scaled.width), height: Swift.min(goal.height, scaled.height))
      )
    case .minimumShortSide(let side):
      guard supportsDCTScaling else { return (8, filling(stored, shortSide: side)) }
      var numerator = jpegNumerator(stored: stored, minimumShortSide: side)
      var scaled = scaledSize(numerator)
      while numerator < 8, scaled.shortSide < Swift.min(side, stored.shortSide) {
        numerator *= 2
        scaled = scaledSize(numerator)
      }
      return (numerator, scaled)
    }
  }
}
