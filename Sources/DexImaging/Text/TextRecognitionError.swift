import Foundation

/// Why text recognition failed: typed, so that a host can tell a missing language pack from a
/// photo too large or an engine that ran out of time.
public enum TextRecognitionError: Error, Sendable, Hashable {
  /// The engine or its language data is not installed (`detail` names what is missing).
  case engineUnavailable(detail: String)
  /// A requested language has no data installed.
  case languageUnavailable(String)
  /// The image has more pixels than ``TextRecognitionOptions/maximumPixelCount``.
  case imageTooLarge(width: Int, height: Int, maximumPixelCount: Int)
  /// The options are out of range (an empty language list, a negative timeout).
  case invalidOptions(String)
  /// Recognition took longer than ``TextRecognitionOptions/timeout``.
  case timedOut(after: Duration)
  /// The engine failed on this image.
  case recognitionFailed(String)
}

extension TextRecognitionError: LocalizedError {
  /// A one-line description fit for a user or a log.
  public var errorDescription: String? {
    switch self {
    case .engineUnavailable(let detail): "Text recognition is not available: \(detail)."
    case .languageUnavailable(let language): "No text recognition data for language “\(language)”."
    case .imageTooLarge(let width, let height, let maximumPixelCount):
      "The image (\(width)×\(height)) is larger than the \(maximumPixelCount) pixels text recognition takes."
    case .invalidOptions(let message): "Invalid text recognition options: \(message)."
    case .timedOut(let after): "Text recognition took longer than \(after)."
    case .recognitionFailed(let message): "Text recognition failed: \(message)."
    }
  }

  /// What the user can do about it, where there is something.
  public var recoverySuggestion: String? {
    switch self {
    case .engineUnavailable, .languageUnavailable:
      "Install Tesseract and its language data (on Debian: tesseract-ocr-eng)."
    case .imageTooLarge: "Downscale the photo first."
    case .timedOut: "Try a smaller photo or allow more time."
    case .invalidOptions, .recognitionFailed: nil
    }
  }
}
