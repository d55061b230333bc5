/// What AI Vision answers about a photo: the model's description, or its answer to the
/// question asked (``DexVisionServicing/describe(imageData:question:deadline:)``).
public struct VisionDescription: Codable, Sendable, Equatable {
  /// The description or answer, as the model wrote it (bounded by the backend: `dex-proxy`
  /// passes on at most 2 000 characters).
  public var text: String
  /// The author of the message, normally `assistant`.
  public var role: String

  /// Creates a description.
  public init(text: String, role: String = "assistant") {
    self.text = text
    self.role = role
  }

  /// The description a `/vision` reply carries.
  public init(_ response: VisionResponse) {
    self.init(text: response.content, role: response.role)
  }
}
