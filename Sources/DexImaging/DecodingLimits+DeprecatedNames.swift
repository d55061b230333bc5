// The names DecodingLimits had before DexKit spelled its limits `maximum...` (as Apple's APIs
// do): kept so that code written against 0.1.0 still compiles, with a fix-it to the new name.
extension DecodingLimits {
  /// Creates limits under their old names.
  @available(
    *, deprecated,
    renamed:
      "init(maximumPixelCount:maximumByteCount:maximumDimension:maximumMemoryByteCount:maximumItemCount:)"
  )
  @_disfavoredOverload
  public init(
    maxPixelCount: Int = 100_000_000, maxByteCount: Int = 100 * 1024 * 1024,
    maxDimension: Int = DecodingLimits.largestDimension, maxMemoryByteCount: Int = 256 << 20,
    maxItemCount: Int = 1024
  ) {
    self.init(
      maximumPixelCount: maxPixelCount, maximumByteCount: maxByteCount,
      maximumDimension: maxDimension, maximumMemoryByteCount: maxMemoryByteCount,
      maximumItemCount: maxItemCount)
  }

  /// The old name of ``maximumPixelCount``.
  @available(*, deprecated, renamed: "maximumPixelCount")
  public var maxPixelCount: Int {
    get { maximumPixelCount }
    set { maximumPixelCount = newValue }
  }

  /// The old name of ``maximumByteCount``.
  @available(*, deprecated, renamed: "maximumByteCount")
  public var maxByteCount: Int {
    get { maximumByteCount }
    set { maximumByteCount = newValue }
  }

  /// The old name of ``maximumDimension``.
  @available(*, deprecated, renamed: "maximumDimension")
  public var maxDimension: Int {
    get { maximumDimension }
    set { maximumDimension = newValue }
  }

  /// The old name of ``maximumMemoryByteCount``.
  @available(*, deprecated, renamed: "maximumMemoryByteCount")
  public var maxMemoryByteCount: Int {
    get { maximumMemoryByteCount }
    set { maximumMemoryByteCount = newValue }
  }

  /// The old name of ``maximumItemCount``.
  @available(*, deprecated, renamed: "maximumItemCount")
  public var maxItemCount: Int {
    get { maximumItemCount }
    set { maximumItemCount = newValue }
  }
}
