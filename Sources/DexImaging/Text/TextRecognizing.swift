/// The capability to read printed text in a photo on device: a plant tag, a card's name, a
/// receipt, a screenshot's words.
///
/// It exists beside ``ImageClassifying`` so that a host reads text without any network and
/// without decoding the photo a second time: a conformance takes the decoded, upright pixels
/// (``RGBImage``, what ``DownscaledImage/pixels`` or a decoder already holds). DexKit's
/// conformance over Tesseract 5 lives in its own product, `DexTextRecognition`, so that an app
/// that never reads text links no OCR engine. On Apple platforms a conformance over Vision's
/// `VNRecognizeTextRequest` is the natural one (sketched in DexKit's *Extending DexKit*, whose
/// sketch is compiled here only against stand-ins for the Vision types).
///
/// Conformances must be cancellable (a cancelled task ends with `CancellationError`), bounded in
/// time (``TextRecognitionOptions/timeout``) and in memory (``TextRecognitionOptions/maximumPixelCount``)
/// and report failures as ``TextRecognitionError``.
public protocol TextRecognizing: Sendable {
  /// Recognises the text in `image`, line by line, in reading order.
  ///
  /// - Returns: the recognised lines; an image without text gives an empty
  ///   ``RecognizedText`` rather than an error.
  /// - Throws: ``TextRecognitionError`` when the image or the options are refused, the engine
  ///   fails or the time runs out; `CancellationError` when the calling task is cancelled.
  func recognizeText(
    in image: RGBImage, options: TextRecognitionOptions
  ) async throws
    -> RecognizedText
}

extension TextRecognizing {
  /// Recognises the text in `image` with the default ``TextRecognitionOptions``.
  public func recognizeText(in image: RGBImage) async throws -> RecognizedText {
    try await recognizeText(in: image, options: TextRecognitionOptions())
  }
}
