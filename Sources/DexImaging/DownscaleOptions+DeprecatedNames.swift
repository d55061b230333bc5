// The names DownscaleOptions had before DexKit spelled its limits `maximum...` (as Apple's APIs
// do): kept so that code written against 0.1.0 still compiles, with a fix-it to the new name.
extension DownscaleOptions {
  /// Creates options under their old names.
  @available(
    *, deprecated,
    renamed:
      "init(maximumDimension:quality:chromaSubsampling:isProgressive:decoding:maximumThumbnailDimension:)"
  )
  @_disfavoredOverload
  public init(
    maxDimension: Int = 1024,
    quality: Double = 0.8,
    chromaSubsampling: ChromaSubsampling = .yuv420,
    isProgressive: Bool = false,
    decoding: DecodingOptions = DecodingOptions(),
    thumbnailMaxDimension: Int? = nil
  ) {
    self.init(
      maximumDimension: maxDimension, quality: quality, chromaSubsampling: chromaSubsampling,
      isProgressive: isProgressive, decoding: decoding,
      maximumThumbnailDimension: thumbnailMaxDimension)
  }

  /// The old name of ``maximumDimension``.
  @available(*, deprecated, renamed: "maximumDimension")
  public var maxDimension: Int {
    get { maximumDimension }
    set { maximumDimension = newValue }
  }

  /// The old name of ``maximumThumbnailDimension``.
  @available(*, deprecated, renamed: "maximumThumbnailDimension")
  public var thumbnailMaxDimension: Int? {
    get { maximumThumbnailDimension }
    set { maximumThumbnailDimension = newValue }
  }
}
