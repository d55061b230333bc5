import DexModel

/// The reply of `POST /vision`: the model's message, as in the reference app (ShipThatApp's iOS
/// Dex Scanner, whose backend contract DexKit keeps; not part of this repository), and for an
/// identification the parsed entry, typed.
///
/// A backend that speaks the reference app's plain `{"role", "content"}` sends no ``entry``;
/// ``DexVisionService`` then parses ``content`` leniently.
public struct VisionResponse: Codable, Sendable, Equatable {
  /// The author of the message, normally `assistant`.
  public let role: String
  /// The model's text: a description, or the JSON a ``DexVisionService`` parses.
  public let content: String
  /// For an identification: the entry the backend parsed from the model's reply (`dex-proxy`
  /// sends it beside ``content``), decoded with `JSONDecoder`; `nil` for a description, a reply
  /// it could not read, or a backend that sends only ``content``.
  public let entry: ScanResult?

  /// Creates a response.
  public init(role: String, content: String, entry: ScanResult? = nil) {
    self.role = role
    self.content = content
    self.entry = entry
  }
}
