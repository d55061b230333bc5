import Foundation

/// Why the offline classifier could not load its model or run on an input.
///
/// ``ImageClassifying/classify(imageData:)`` never throws (a failure is a `nil` guess, logged);
/// these errors surface from the lower-level calls (loading weights from a file URL, running the
/// network on pixels) so that hosts and tests can tell what went wrong.
public enum ClassifierError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A bundled or named resource does not exist.
  case missingResource(String)
  /// A file exists but could not be read.
  case unreadableFile(path: String, reason: String)
  /// The weights manifest is not valid JSON of the expected format, or describes another model.
  case invalidManifest(String)
  /// The weights blob does not match its manifest (size, checksum, tensor shapes).
  case invalidWeights(String)
  /// The label table is malformed or does not have one row per class.
  case invalidLabels(String)
  /// The image is too small to say anything about.
  case imageTooSmall(width: Int, height: Int, minimumSide: Int)
  /// The image bytes could not be decoded into pixels.
  case decodingFailed(String)
  /// The network input does not have the expected size or holds a non-finite value.
  case invalidInput(String)
  /// The compute backend failed while running the network (oneDNN could not run a layer, for
  /// example for lack of memory). A backend that fails to load falls back instead.
  case backendFailed(String)
  /// The task was cancelled while classifying.
  case cancelled

  /// A readable explanation, safe for logs (it never contains image bytes).
  public var description: String {
    switch self {
    case .missingResource(let name): "classifier resource \(name) is missing"
    case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
    case .invalidManifest(let reason): "invalid classifier manifest: \(reason)"
    case .invalidWeights(let reason): "invalid classifier weights: \(reason)"
    case .invalidLabels(let reason): "invalid classifier labels: \(reason)"
    case .imageTooSmall(let width, let height, let minimumSide):
      "image \(width)×\(height) is too small to classify (minimum side \(minimumSide) px)"
    case .decodingFailed(let reason): "cannot decode image: \(reason)"
    case .invalidInput(let reason): "invalid network input: \(reason)"
    case .backendFailed(let reason): "the classifier backend failed: \(reason)"
    case .cancelled: "classification was cancelled"
    }
  }
}

extension ClassifierError: LocalizedError {
  /// The same text as ``description``, so `localizedDescription` says what went wrong.
  public var errorDescription: String? { description }
}
