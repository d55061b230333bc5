/// Size arithmetic shared by every decode path: target sizes, rounding and the libjpeg scale.
///
/// Kept free of C so that it is testable (and compiles) everywhere.
enum DownscaleGeometry {
  /// A width and height in pixels.
  struct Size: Hashable, Sendable {
    var width: Int
    var height: Int

    var transposed: Size { Size(width: height, height: width) }
    var longSide: Int { Swift.max(width, height) }
    var shortSide: Int { Swift.min(width, height) }
  }

  /// `value * numerator / denominator` rounded half up, at least 1 (no overflow for image sizes).
  static func scaled(_ value: Int, by numerator: Int, over denominator: Int) -> Int {
    Swift.max(1, (value * numerator + denominator / 2) / denominator)
  }

  /// Fit within `maximumDimension` on the long side; never upscale.
  static func fitting(_ size: Size, maximumDimension: Int) -> Size {
    guard size.longSide > maximumDimension else { return size }
    if size.width >= size.height {
      return Size(
        width: maximumDimension, height: scaled(size.height, by: maximumDimension, over: size.width)
      )
    }
    return Size(
      width: scaled(size.width, by: maximumDimension, over: size.height), height: maximumDimension)
  }

  /// Short side exactly `shortSide` (or the whole image when it is smaller); never upscale.
  static func filling(_ size: Size, shortSide: Int) -> Size {
    guard size.shortSide > shortSide else { return size }
    if size.width <= size.height {
      return Size(width: shortSide, height: scaled(size.height, by: shortSide, over: size.width))
    }
    return Size(width: scaled(size.width, by: shortSide, over: size.height), height: shortSide)
  }

  /// libjpeg's output size at `numerator`/8 (jdiv_round_up).
  static func jpegScaled(_ size: Size, numerator: Int) -> Size {
    Size(width: (size.width * numerator + 7) / 8, height: (size.height * numerator + 7) / 8)
  }

  /// The SIMD-accelerated libjpeg-turbo scale numerators (over 8), smallest first.
  static let jpegNumerators = [1, 2, 4, 8]

  /// Smallest numerator whose scaled decode is at least `target * gap` on both axes, or one whose
  /// scaled decode *is* the target: an exact DCT-domain reduction needs no resample at all and
  /// loses only about 0.1 dB against the gap path (a 4096 x 4096 photo headed for 1024 decodes
  /// at 1/4 directly, like Pillow's `draft`), where a near miss (1088 for 1024) then resampled
  /// loses 0.3-1 dB.
  static func jpegNumerator(stored: Size, target: Size, gap: Double) -> Int {
    if let exact = jpegNumerators.dropLast().first(where: {
      jpegScaled(stored, numerator: $0) == target
    }) {
      return exact
    }
    let gap = gap.isFinite ? Swift.max(1.0, gap) : 1.0
    for numerator in jpegNumerators.dropLast() {
      let scaled = jpegScaled(stored, numerator: numerator)
      if Double(scaled.width) >= Double(target.width) * gap
        && Double(scaled.height) >= Double(target.height) * gap
      {
        return numerator
      }
    }
    return 8
  }

  /// Smallest numerator whose scaled decode keeps the short side at least `shortSide`.
  static func jpegNumerator(stored: Size, minimumShortSide shortSide: Int) -> Int {
    for numerator in jpegNumerators.dropLast()
    where jpegScaled(stored, numerator: numerator).shortSide >= shortSide {
      return numerator
    }
    return 8
  }
}
