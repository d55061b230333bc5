/// How a ``TextRecognizing`` conformance reads an image, and the bounds it must respect.
///
/// It exists so that every conformance takes the same limits: a photo from an untrusted source
/// must neither run for ever nor grow memory without bound.
public struct TextRecognitionOptions: Sendable, Hashable {
  /// The languages to read, as ISO 639-2 codes the engine knows (`"eng"`, `"deu"`); the first
  /// is the main one.
  public var languages: [String]
  /// Lines whose confidence is below this (0...1) are left out of the result.
  public var minimumConfidence: Double
  /// The longest the recognition may take before it ends with
  /// ``TextRecognitionError/timedOut(after:)``.
  public var timeout: Duration
  /// The largest image, in pixels, that is recognised; larger ones are refused with
  /// ``TextRecognitionError/imageTooLarge(width:height:maximumPixelCount:)`` before any work.
  public var maximumPixelCount: Int
  /// Whether the engine first finds which way the text is turned (a quarter or half turn, as in a
  /// photo of a sideways plant tag) and reads it upright.
  ///
  /// Off by default: photos are upright once their EXIF orientation is applied, and detection
  /// costs time and needs a paragraph's worth of characters to be sure (a lone card name is
  /// left as it is). Small skews (a few degrees) are read either way. Boxes stay in the pixels
  /// of the image that was passed in.
  public var detectsOrientation: Bool

  /// Creates options. The defaults read English, keep lines at 0.3 confidence or more, stop after
  /// 30 seconds, take up to 40 megapixels and expect upright text.
  public init(
    languages: [String] = ["eng"], minimumConfidence: Double = 0.3,
    timeout: Duration = .seconds(30), maximumPixelCount: Int = 40_000_000,
    detectsOrientation: Bool = false
  ) {
    self.languages = languages
    self.minimumConfidence = minimumConfidence
    self.timeout = timeout
    self.maximumPixelCount = maximumPixelCount
    self.detectsOrientation = detectsOrientation
  }
}
