import DexModel

extension ImagePreprocessor {
  /// The square around the subject when `image` is on a plain background; `nil` otherwise (the
  /// centre crop is the only view then).
  ///
  /// The border (the first and last row and column) is plain when at least 90 % of its pixels
  /// are within 12 levels, in every channel, of its median colour. The subject is then every
  /// pixel that differs from that colour by more than 24 levels in some channel; if it covers
  /// at least 1 % of the photo, its box (from the 0.5th to the 99.5th percentile of its rows and
  /// of its columns, so that a few stray pixels do not widen it) is widened by 10 % of its
  /// longer side on each side and made square about its centre. The numbers were chosen before
  /// they were measured and are not fitted on any photo; `subject_square()` in
  /// `Scripts/classifier-evalset.py` is the same rule in numpy.
  ///
  /// It reads the border twice, and only where the border is plain every pixel once more; it
  /// keeps three 256-bin histograms and a counter per row and per column, no copy of the photo.
  public func subjectSquare(in image: RGBImage) -> SubjectSquare? {
    let width = image.width
    let height = image.height
    return image.pixels.withUnsafeBufferPointer { pixels -> SubjectSquare? in
      guard let base = pixels.baseAddress else { return nil }
      // The border as numpy's concatenation of the first and last row and column: corners count
      // twice, 2w + 2h pixels, always an even count.
      let borderCount = 2 * width + 2 * height
      var histograms = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
      func forEachBorderPixel(_ body: (UnsafePointer<UInt8>) -> Void) {
        for x in 0..<width {
          body(base + x * 3)
          body(base + ((height - 1) * width + x) * 3)
        }
        for y in 0..<height {
          body(base + (y * width) * 3)
          body(base + (y * width + width - 1) * 3)
        }
      }
      forEachBorderPixel { pixel in
        for c in 0..<3 { histograms[c][Int(pixel[c])] += 1 }
      }
      // The median of an even count: the mean of the two middle values, as numpy's.
      let median = (0..<3).map { c in
        (Double(Self.kth(borderCount / 2 - 1, of: histograms[c]))
          + Double(Self.kth(borderCount / 2, of: histograms[c]))) / 2
      }
      func distance(_ pixel: UnsafePointer<UInt8>) -> Double {
        max(
          abs(Double(pixel[0]) - median[0]), abs(Double(pixel[1]) - median[1]),
          abs(Double(pixel[2]) - median[2]))
      }
      var plain = 0
      forEachBorderPixel { pixel in
        if distance(pixel) <= Self.backgroundTolerance { plain += 1 }
      }
      guard Double(plain) / Double(borderCount) >= Self.plainBorderShare else { return nil }

      var rows = [Int](repeating: 0, count: height)
      var columns = [Int](repeating: 0, count: width)
      var count = 0
      for y in 0..<height {
        let row = base + y * width * 3
        for x in 0..<width where distance(row + x * 3) > Self.subjectThreshold {
          rows[y] += 1
          columns[x] += 1
          count += 1
        }
      }
      guard count > 0, Double(count) >= Self.minimumSubjectShare * Double(height * width) else {
        return nil
      }
      let y0 = Self.percentile(0.5, of: rows, count: count)
      let y1 = Self.percentile(99.5, of: rows, count: count)
      let x0 = Self.percentile(0.5, of: columns, count: count)
      let x1 = Self.percentile(99.5, of: columns, count: count)
      // Python's round(): halves to even.
      let side = Int(
        (max(y1 - y0, x1 - x0) * (1 + 2 * Self.subjectMargin)).rounded(.toNearestOrEven))
      guard side >= 1 else { return nil }
      let top = Int(((y0 + y1 - Double(side)) / 2).rounded(.toNearestOrEven))
      let left = Int(((x0 + x1 - Double(side)) / 2).rounded(.toNearestOrEven))
      let background = DexColor(
        red: UInt8(median[0]), green: UInt8(median[1]), blue: UInt8(median[2]))
      return SubjectSquare(x: left, y: top, side: side, background: background)
    }
  }

  /// The share of the border's pixels that must be near its median colour.
  static let plainBorderShare = 0.9
  /// How far (levels, in every channel) a border pixel may be from the median and still count.
  static let backgroundTolerance = 12.0
  /// How far (levels, in some channel) a pixel must be from the background to be the subject.
  static let subjectThreshold = 24.0
  /// The subject's smallest share of the photo.
  static let minimumSubjectShare = 0.01
  /// The margin added on each side, a share of the box's longer side.
  static let subjectMargin = 0.1

  /// The `k`-th smallest value (from 0) of the values counted in `histogram`.
  static func kth(_ k: Int, of histogram: [Int]) -> Int {
    var seen = 0
    for (value, n) in histogram.enumerated() {
      seen += n
      if seen > k { return value }
    }
    return histogram.count - 1
  }

  /// numpy's default (linear) percentile `q` of the `count` indices counted in `histogram`.
  static func percentile(_ q: Double, of histogram: [Int], count: Int) -> Double {
    let position = q / 100 * Double(count - 1)
    let below = Int(position.rounded(.down))
    let fraction = position - Double(below)
    let a = Double(kth(below, of: histogram))
    let b = Double(kth(min(below + 1, count - 1), of: histogram))
    // numpy's lerp, from whichever end is nearer.
    return fraction >= 0.5 ? b - (b - a) * (1 - fraction) : a + (b - a) * fraction
  }
}
