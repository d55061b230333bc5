/// Turns decoded pixels of any size into the network's normalised `224 × 224 × 3` input.
///
/// It takes the centre square of `224/256` of the short side (the standard ImageNet evaluation
/// crop), resamples it to 224 × 224 with a separable bicubic filter (a = −0.5, widened by the
/// scale factor when shrinking so that large photos are low-pass filtered rather than aliased,
/// weights normalised, as Pillow's `BICUBIC`), and maps each 8-bit value `x` to `(x − 127) / 128`.
/// `Scripts/classifier-reference.py` implements the same steps in numpy.
public struct ImagePreprocessor: Sendable, Hashable {
  /// The output side in pixels.
  public var outputSize: Int
  /// The fraction of the short side kept by the centre crop.
  public var cropFraction: Double

  /// Creates a preprocessor; the defaults are EfficientNet-Lite0's (224 px, 224/256 crop).
  public init(outputSize: Int = 224, cropFraction: Double = 224.0 / 256.0) {
    self.outputSize = max(1, outputSize)
    self.cropFraction = cropFraction.isFinite ? min(max(cropFraction, 0.01), 1) : 1
  }

  /// The centre crop, in source pixels, for an image of the given size.
  public func cropRegion(width: Int, height: Int) -> (x: Int, y: Int, side: Int) {
    let short = min(width, height)
    let side = min(short, max(1, Int((Double(short) * cropFraction).rounded())))
    return ((width - side) / 2, (height - side) / 2, side)
  }

  /// The normalised network input for `image`, NHWC, `outputSize² × 3` values: its centre crop
  /// (``cropRegion(width:height:)``).
  public func networkInput(from image: RGBImage) -> [Float] {
    let crop = cropRegion(width: image.width, height: image.height)
    return networkInput(from: image, x: crop.x, y: crop.y, side: crop.side, fill: [0, 0, 0])
  }

  /// The normalised network input for `square` of `image` (``subjectSquare(in:)``), NHWC,
  /// `outputSize² × 3` values: the whole square resampled, its parts outside the photo in its
  /// background colour.
  ///
  /// Besides the result it holds one intermediate of `outputSize × square.side × 3` values; the
  /// squares ``subjectSquare(in:)`` finds are at most 1.2 times the photo's longer side.
  ///
  /// - Returns: `nil` for a square that does not overlap the photo or whose side is more than
  ///   four times the photo's longer side (no square ``subjectSquare(in:)`` finds is either).
  public func networkInput(from image: RGBImage, square: SubjectSquare) -> [Float]? {
    let longer = max(image.width, image.height)
    guard square.side <= 4 * longer,
      square.x > -square.side, square.x < image.width,
      square.y > -square.side, square.y < image.height
    else { return nil }
    let fill = square.background
    return networkInput(
      from: image, x: square.x, y: square.y, side: square.side,
      fill: [Float(fill.red), Float(fill.green), Float(fill.blue)])
  }

  /// Resamples the square at (`x`, `y`) of side `side` to `outputSize²` and normalises it; what
  /// lies outside the image reads as `fill` (R, G, B).
  private func networkInput(
    from image: RGBImage, x: Int, y: Int, side: Int, fill: [Float]
  ) -> [Float] {
    let n = outputSize
    let taps = ResamplingTaps(inputSize: side, outputSize: n)
    let rowLength = side * 3
    // The square's columns that lie on the image: [lead, lead + visible).
    let firstColumn = min(max(x, 0), image.width)
    let lead = firstColumn - x
    let visible = max(min(x + side, image.width) - firstColumn, 0)
    let visibleLength = visible * 3
    // The background's row, where the square reaches above or below the image (never for the
    // centre crop).
    let fillRow =
      y < 0 || y + side > image.height ? (0..<visibleLength).map { fill[$0 % 3] } : []
    // Vertical pass: n rows of the square's full width.
    var vertical = [Float](repeating: 0, count: n * rowLength)
    image.pixels.withUnsafeBufferPointer { source in
      vertical.withUnsafeMutableBufferPointer { target in
        guard let source = source.baseAddress, let target = target.baseAddress else { return }
        for oy in 0..<n {
          let out = target + oy * rowLength
          let visibleOut = out + lead * 3
          for t in 0..<taps.count[oy] {
            let w = taps.weights[oy * taps.stride + t]
            let sourceRow = y + taps.start[oy] + t
            if sourceRow >= 0, sourceRow < image.height {
              let row = source + (sourceRow * image.width + firstColumn) * 3
              for j in 0..<visibleLength { visibleOut[j] += w * Float(row[j]) }
            } else {
              for j in 0..<visibleLength { visibleOut[j] += w * fillRow[j] }
            }
          }
          // Columns off the image: the background, whatever the row.
          for j in 0..<(lead * 3) { out[j] = fill[j % 3] }
          for j in ((lead + visible) * 3)..<rowLength { out[j] = fill[j % 3] }
        }
      }
    }
    // Horizontal pass, then normalisation.
    var input = [Float](repeating: 0, count: n * n * 3)
    vertical.withUnsafeBufferPointer { source in
      input.withUnsafeMutableBufferPointer { target in
        guard let source = source.baseAddress, let target = target.baseAddress else { return }
        for oy in 0..<n {
          let row = source + oy * rowLength
          for ox in 0..<n {
            var r: Float = 0
            var g: Float = 0
            var b: Float = 0
            let first = taps.start[ox] * 3
            for t in 0..<taps.count[ox] {
              let w = taps.weights[ox * taps.stride + t]
              let px = row + first + t * 3
              r += w * px[0]
              g += w * px[1]
              b += w * px[2]
            }
            let out = target + (oy * n + ox) * 3
            out[0] = (r - 127) / 128
            out[1] = (g - 127) / 128
            out[2] = (b - 127) / 128
          }
        }
      }
    }
    return input
  }
}

/// Normalised bicubic filter taps for resampling one axis from `inputSize` to `outputSize`.
struct ResamplingTaps {
  /// First input index of each output index.
  var start: [Int]
  /// Number of taps of each output index.
  var count: [Int]
  /// `outputSize × stride` weights.
  var weights: [Float]
  /// Maximum taps per output index.
  var stride: Int

  init(inputSize: Int, outputSize: Int) {
    let scale = Double(inputSize) / Double(outputSize)
    let filterScale = max(scale, 1)
    let support = 2 * filterScale
    let stride = Int(support.rounded(.up)) * 2 + 1
    var start = [Int](repeating: 0, count: outputSize)
    var count = [Int](repeating: 0, count: outputSize)
    var weights = [Float](repeating: 0, count: outputSize * stride)
    for x in 0..<outputSize {
      let center = (Double(x) + 0.5) * scale
      let lo = max(Int(center - support + 0.5), 0)
      let hi = min(Int(center + support + 0.5), inputSize)
      let taps = min(max(hi - lo, 0), stride)
      var w = [Double](repeating: 0, count: taps)
      var total = 0.0
      for t in 0..<taps {
        w[t] = Self.cubic((Double(lo + t) - center + 0.5) / filterScale)
        total += w[t]
      }
      for t in 0..<taps {
        weights[x * stride + t] = Float(total != 0 ? w[t] / total : w[t])
      }
      start[x] = lo
      count[x] = taps
    }
    self.start = start
    self.count = count
    self.weights = weights
    self.stride = stride
  }

  /// Keys' cubic convolution kernel with a = −0.5.
  static func cubic(_ x: Double) -> Double {
    let a = -0.5
    let x = abs(x)
    if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
    if x < 2 { return (((x - 5) * x + 8) * x - 4) * a }
    return 0
  }
}
