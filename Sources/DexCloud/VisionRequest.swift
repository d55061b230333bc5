/// The body of `POST /vision`: a base64 image and an optional prompt, as in the reference app.
public struct VisionRequest: Codable, Sendable, Equatable {
  /// The image (JPEG or PNG), base64-encoded.
  public let image: String
  /// What to ask about the image; `nil` for a general description.
  public let prompt: String?

  /// Creates a request body.
  public init(image: String, prompt: String? = nil) {
    self.image = image
    self.prompt = prompt
  }
}
