import DexModel

/// How bytes are decoded: limits, transparency handling, partial images and shrink-on-load.
public struct DecodingOptions: Sendable, Hashable {
  /// Size limits checked before any large allocation.
  public var limits: DecodingLimits
  /// Colour that transparent and translucent pixels are composited onto (default white).
  /// Compositing is done on the 8-bit sRGB values, like Pillow's `alpha_composite`.
  public var background: DexColor
  /// Whether a truncated file that still yields some rows is accepted (the missing part is
  /// mid-grey) instead of failing with ``ImagingError/truncatedData(format:)``. Default `false`.
  public var allowsPartialImages: Bool
  /// How much larger than the target the DCT-scaled JPEG decode must stay, per axis, before the
  /// Lanczos resample (values below 1 are treated as 1). The default 1.5 picks the smallest
  /// libjpeg scale (1/8, 1/4, 1/2 or 1) that leaves at least a 1.5x reduction to the resampler:
  /// a 4000 x 3000 photo headed for 1024 decodes at 1/2 (2000 x 1500), not at 1/4 (1000 x 750,
  /// too small) — the 1/4 decode of a photo only ~1.05x above target costs about 0.3 dB PSNR.
  /// 1 decodes at the smallest scale still covering the target (fastest); 2 or more keeps
  /// libvips' 2x gap (slower, marginally sharper). Whatever the gap, a scale whose decode is
  /// exactly the target size (4096 x 4096 headed for 1024) is used directly, with no resample.
  public var reducingGap: Double
  /// How libjpeg upsamples subsampled chroma (default ``ChromaUpsampling/automatic``).
  public var chromaUpsampling: ChromaUpsampling
  /// Whether a progressive JPEG's whole-image coefficient buffer (about 2 bytes per pixel and
  /// component) is advised for transparent huge pages on Linux (default `true`): it removes most
  /// of the page faults of first touching it, 15-20 % of a 12 MP progressive decode. Turn it off
  /// on hosts where the kernel's synchronous huge-page compaction must be avoided; the advice
  /// stays on the address range after the buffer is freed.
  public var advisesHugePages: Bool

  /// Creates decoding options; the defaults suit photos headed for a 1024-pixel thumbnail.
  public init(
    limits: DecodingLimits = .default,
    background: DexColor = DexColor(red: 255, green: 255, blue: 255),
    allowsPartialImages: Bool = false,
    reducingGap: Double = 1.5,
    chromaUpsampling: ChromaUpsampling = .automatic,
    advisesHugePages: Bool = true
  ) {
    self.limits = limits
    self.background = background
    self.allowsPartialImages = allowsPartialImages
    self.reducingGap = reducingGap
    self.chromaUpsampling = chromaUpsampling
    self.advisesHugePages = advisesHugePages
  }
}
