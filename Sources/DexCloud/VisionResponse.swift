/// The reply of `POST /vision`: the model's message, as in the reference app.
public struct VisionResponse: Codable, Sendable, Equatable {
  /// The author of the message, normally `assistant`.
  public let role: String
  /// The model's text: a description, or the JSON a ``DexVisionService`` parses.
  public let content: String

  /// Creates a response.
  public init(role: String, content: String) {
    self.role = role
    self.content = content
  }
}
