/// The JSON body of `POST /auth_token`: `{"subject": "…", "nonce": "…"}`.
///
/// The subject is an opaque, non-secret client identifier (an installation id, a user id) that
/// the server writes into the session; `nil` lets the server choose. The nonce is random and
/// ignored by the server: it makes every bootstrap request's signature unique, so two launches
/// in the same second are not mistaken for a replay.
public struct AuthTokenRequest: Codable, Sendable, Equatable {
  /// The opaque client identifier.
  public var subject: String?
  /// 16 random bytes, hex; only there to make the signature unique.
  public var nonce: String?

  /// Creates a request body with a fresh nonce.
  public init(subject: String? = nil) {
    self.init(subject: subject, nonce: Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) }))
  }

  /// Creates a request body with an explicit nonce.
  public init(subject: String?, nonce: String?) {
    self.subject = subject
    self.nonce = nonce
  }
}
