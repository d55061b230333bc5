/// One backend route: its method, its path under the base URL, and which secret signs it.
public struct Endpoint: Sendable, Hashable {
  /// Which secret signs requests to an endpoint.
  public enum Signing: Sendable, Hashable {
    /// The bootstrap key from configuration (only `/auth_token`).
    case bootstrapKey
    /// The current session secret, with the session id in `x-dex-session`.
    case session
  }

  /// The upper-case HTTP method.
  public let method: String
  /// The path under the base URL, starting with `/`, percent-encoded, optionally with `?query`.
  public let path: String
  /// Which secret signs it.
  public let signing: Signing

  /// Creates an endpoint; `path` gets a leading `/` if it has none.
  public init(method: String = "POST", path: String, signing: Signing = .session) {
    self.method = method.uppercased()
    self.path = path.hasPrefix("/") ? path : "/" + path
    self.signing = signing
  }
}
