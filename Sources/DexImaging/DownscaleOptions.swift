/// What ``ImageDownscaling/downscale(_:options:)`` produces: size, JPEG settings and decoding policy.
public struct DownscaleOptions: Sendable, Hashable {
  /// Longest side of the output in pixels (default 1024). Smaller images are never upscaled.
  public var maximumDimension: Int
  /// JPEG quality in 0...1 as in ImageIO (default 0.8); mapped to libjpeg quality
  /// `round(quality * 100)` clamped to 1...100.
  public var quality: Double
  /// Chroma subsampling of the output JPEG (default 4:2:0).
  public var chromaSubsampling: ChromaSubsampling
  /// Whether the output JPEG is progressive (default baseline).
  public var isProgressive: Bool
  /// How the input is decoded.
  public var decoding: DecodingOptions
  /// Longest side of an extra thumbnail JPEG resampled from the same decode (``DownscaledImage/thumbnailJPEG``),
  /// so that a grid image costs no second decode; `nil` (the default) makes none.
  public var maximumThumbnailDimension: Int?

  /// Creates options; the defaults match the reference app's 1024-pixel, quality 0.8 upload.
  public init(
    maximumDimension: Int = 1024,
    quality: Double = 0.8,
    chromaSubsampling: ChromaSubsampling = .yuv420,
    isProgressive: Bool = false,
    decoding: DecodingOptions = DecodingOptions(),
    maximumThumbnailDimension: Int? = nil
  ) {
    self.maximumDimension = maximumDimension
    self.quality = quality
    self.chromaSubsampling = chromaSubsampling
    self.isProgressive = isProgressive
    self.decoding = decoding
    self.maximumThumbnailDimension = maximumThumbnailDimension
  }

  /// The libjpeg quality (1...100) that ``quality`` maps to.
  public var libjpegQuality: Int {
    guard quality.isFinite else { return 80 }
    return Int((min(max(quality, 0), 1) * 100).rounded()).clamped(to: 1...100)
  }
}

extension Int {
  func clamped(to range: ClosedRange<Int>) -> Int {
    Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
  }
}
