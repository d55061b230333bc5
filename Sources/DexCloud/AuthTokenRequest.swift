/// The JSON body of `POST /auth_token`: `{"subject": "…"}`.
///
/// The subject is an opaque, non-secret client identifier (an installation id, a user id) that
/// the server writes into the session; `nil` lets the server choose.
public struct AuthTokenRequest: Codable, Sendable, Equatable {
  /// The opaque client identifier.
  public var subject: String?

  /// Creates a request body.
  public init(subject: String? = nil) {
    self.subject = subject
  }
}
