import Foundation

/// The JSON body of a successful `POST /auth_token`.
///
/// ```json
/// {"session_id": "dx1.k1.ZGV2aWNl.1763784000.q3…", "session_secret": "Yk9…",
///  "expires_at": 1763784000, "expires_in": 3600, "token_type": "dex-session"}
/// ```
/// `expires_in` (seconds from now) is preferred by the client because it does not depend on the
/// two clocks agreeing; `expires_at` (Unix seconds) is the server's view. The description
/// redacts the secret.
public struct AuthTokenResponse: Codable, Sendable, Equatable {
  /// The public session id, sent back in `x-dex-session`.
  public var sessionID: String
  /// The session secret, the HMAC key for later requests. Never sent back.
  public var sessionSecret: SigningSecret
  /// Expiry in Unix seconds.
  public var expiresAt: Int64
  /// Seconds until expiry, from the moment the server answered.
  public var expiresIn: Int64?
  /// Always `dex-session` for this contract.
  public var tokenType: String?

  /// Creates a response body.
  public init(
    sessionID: String, sessionSecret: SigningSecret, expiresAt: Int64, expiresIn: Int64?,
    tokenType: String? = "dex-session"
  ) {
    self.sessionID = sessionID
    self.sessionSecret = sessionSecret
    self.expiresAt = expiresAt
    self.expiresIn = expiresIn
    self.tokenType = tokenType
  }

  enum CodingKeys: String, CodingKey {
    case sessionID = "session_id"
    case sessionSecret = "session_secret"
    case expiresAt = "expires_at"
    case expiresIn = "expires_in"
    case tokenType = "token_type"
  }
}
