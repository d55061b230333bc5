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
  /// When the client received the session (in its clock), so that a session shorter-lived than
  /// twice the refresh margin is kept for half its life instead of being replaced at once;
  /// `nil` for a credential saved before this was recorded.
  public let issuedAt: Date?

  /// Creates a credential.
  public init(sessionID: String, secret: SigningSecret, expiresAt: Date, issuedAt: Date? = nil) {
    self.sessionID = sessionID
    self.secret = secret
    self.expiresAt = expiresAt
    self.issuedAt = issuedAt
  }

  /// Whether the credential should be replaced at `date`, refreshing `margin` before expiry,
  /// or halfway through its life when that is shorter than twice `margin` (a server issuing
  /// 30 s sessions against the default 60 s margin would otherwise be asked for a new session
  /// on every call).
  public func needsRefresh(at date: Date, margin: Duration) -> Bool {
    var margin = margin.timeInterval
    if let issuedAt, expiresAt > issuedAt {
      margin = min(margin, expiresAt.timeIntervalSince(issuedAt) / 2)
    }
    return date.addingTimeInterval(margin) >= expiresAt
  }
}

extension Duration {
  /// The duration in (fractional) seconds.
  var timeInterval: TimeInterval {
    let parts = components
    return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
  }
}
