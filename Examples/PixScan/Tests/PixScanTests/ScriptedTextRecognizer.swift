import DexImaging

/// A test double: answers every image with the same lines, and records the sizes it was given
/// (the app's own OCR is the real engine; this checks PixScan's plumbing around it).
struct ScriptedTextRecognizer: TextRecognizing {
  var lines: [String]

  func recognizeText(
    in image: RGBImage, options: TextRecognitionOptions
  ) async throws
    -> RecognizedText
  {
    RecognizedText(
      lines: lines.map {
        RecognizedTextLine(
          text: "\($0) (\(image.width)x\(image.height))", confidence: 0.9,
          boundingBox: PixelRect(x: 0, y: 0, width: 1, height: 1))
      })
  }
}
