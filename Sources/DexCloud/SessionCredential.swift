import Foundation

/// A session as the client holds it: the public id, the secret that signs requests, and when it
/// expires.
///
/// The id travels in `x-dex-session` on every request; the secret is only ever used as the HMAC
/// key and never sent. Its description redacts the secret (see ``SigningSecret``).
public struct SessionCredential: Sendable, Equatable, Codable {
  /// The public, self-authenticating session id.
  public let sessionID: String
  /// The session secret, the HMAC key for session-signed requests.
  public let secret: SigningSecret
  /// When the server stops accepting the session (in the client's clock).
  public let expiresAt: Date

  /// Creates a credential.
  public init(sessionID: String, secret: SigningSecret, expiresAt: Date) {
    self.sessionID = sessionID
    self.secret = secret
    self.expiresAt = expiresAt
  }

  /// Whether the credential should be replaced at `date`, refreshing `margin` before expiry.
  public func needsRefresh(at date: Date, margin: Duration) -> Bool {
    date.addingTimeInterval(margin.timeInterval) >= expiresAt
  }
}

extension Duration {
  /// The duration in (fractional) seconds.
  var timeInterval: TimeInterval {
    let parts = components
    return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
  }
}
