import DexImaging

// The names DexScanner.Configuration had before DexKit spelled its limits `maximum...` (as
// Apple's APIs do): kept so that code written against 0.1.0 still compiles, with a fix-it.
extension DexScanner.Configuration {
  /// Creates a configuration under the old names.
  @available(
    *, deprecated,
    renamed: "init(maximumDimension:jpegQuality:maximumThumbnailDimension:cloudTimeout:)"
  )
  @_disfavoredOverload
  public init(
    maxDimension: Int = 1024, jpegQuality: Double = 0.8, thumbnailMaxDimension: Int? = 256,
    cloudTimeout: Duration = DexScanner.Configuration.defaultCloudTimeout
  ) {
    self.init(
      maximumDimension: maxDimension, jpegQuality: jpegQuality,
      maximumThumbnailDimension: thumbnailMaxDimension, cloudTimeout: cloudTimeout)
  }

  /// The old name of ``maximumDimension``.
  @available(*, deprecated, renamed: "maximumDimension")
  public var maxDimension: Int {
    get { encoding.maximumDimension }
    set { encoding.maximumDimension = newValue }
  }

  /// The old name of ``maximumThumbnailDimension``.
  @available(*, deprecated, renamed: "maximumThumbnailDimension")
  public var thumbnailMaxDimension: Int? {
    get { encoding.maximumThumbnailDimension }
    set { encoding.maximumThumbnailDimension = newValue }
  }
}
