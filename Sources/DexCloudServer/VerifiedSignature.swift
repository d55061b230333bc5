import Foundation

/// A request signature that ``RequestVerifier/verifySignature(of:secrets:)`` found valid and
/// that is not yet recorded against replay.
///
/// It exists so that a server can decide between the two steps (a budget, a quota) and record
/// only the requests it goes on to serve; ``RequestVerifier/record(_:)`` finishes the check.
public struct VerifiedSignature: Sendable, Hashable {
  /// The `x-signature` value, the replay cache's key.
  public let signature: String
  /// The request's method (for the verifier's log line).
  public let method: String
  /// When the signature leaves the timestamp window and may be forgotten.
  public let expiresAt: Date
}
