import DexImaging

/// A ``TextRecognizing`` conformance that reads nothing and says why: what PixScan uses when no
/// OCR engine is built in or installed.
///
/// It exists so that the app runs, and tells the user plainly that text recognition is not
/// available, instead of showing made-up text.
public struct UnavailableTextRecognizer: TextRecognizing {
  /// Why recognition is unavailable, shown on the page.
  public var reason: String

  /// Creates the recognizer with the reason it reports.
  public init(reason: String) {
    self.reason = reason
  }

  /// Always throws ``TextRecognitionError/engineUnavailable(detail:)`` with ``reason``.
  public func recognizeText(
    in image: RGBImage, options: TextRecognitionOptions
  ) async throws
    -> RecognizedText
  {
    throw TextRecognitionError.engineUnavailable(detail: reason)
  }
}
