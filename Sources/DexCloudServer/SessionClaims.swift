import DexCloud
import Foundation

/// What a valid session id proves: who it was issued to, until when, and under which key.
public struct SessionClaims: Sendable, Equatable {
  /// The subject the session was issued to (for example an installation id).
  public let subject: String
  /// When the session expires (whole seconds).
  public let expiresAt: Date
  /// The id of the server key that issued it.
  public let keyID: String
}
