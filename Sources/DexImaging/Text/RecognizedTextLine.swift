/// One line of recognised text, with where it is and how sure the engine is of it.
///
/// It exists so that a host can show the line in place (``boundingBox``) and drop the ones it
/// does not trust (``confidence``).
public struct RecognizedTextLine: Sendable, Hashable, Codable {
  /// The line's text, without a trailing newline.
  public var text: String
  /// The engine's confidence in the line, from 0 to 1.
  public var confidence: Double
  /// Where the line is, in pixels of the image that was recognised (origin at the top left).
  public var boundingBox: PixelRect

  /// Creates a line; `confidence` is clamped to 0...1.
  public init(text: String, confidence: Double, boundingBox: PixelRect) {
    self.text = text
    self.confidence = confidence.isFinite ? min(max(confidence, 0), 1) : 0
    self.boundingBox = boundingBox
  }
}
