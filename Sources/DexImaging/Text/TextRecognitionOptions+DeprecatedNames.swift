// The names TextRecognitionOptions had before DexKit spelled its limits `maximum...` (as
// Apple's APIs do): kept so that code written against 0.1.0 still compiles, with a fix-it.
extension TextRecognitionOptions {
  /// Creates options under their old names.
  @available(
    *, deprecated,
    renamed: "init(languages:minimumConfidence:timeout:maximumPixelCount:detectsOrientation:)"
  )
  @_disfavoredOverload
  public init(
    languages: [String] = ["eng"], minimumConfidence: Double = 0.3,
    timeout: Duration = .seconds(30), maxPixelCount: Int = 40_000_000,
    detectsOrientation: Bool = false
  ) {
    self.init(
      languages: languages, minimumConfidence: minimumConfidence, timeout: timeout,
      maximumPixelCount: maxPixelCount, detectsOrientation: detectsOrientation)
  }

  /// The old name of ``maximumPixelCount``.
  @available(*, deprecated, renamed: "maximumPixelCount")
  public var maxPixelCount: Int {
    get { maximumPixelCount }
    set { maximumPixelCount = newValue }
  }
}
