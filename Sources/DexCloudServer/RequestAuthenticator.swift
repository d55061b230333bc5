import DexCloud
import Foundation

/// The whole server-side contract in one value: bootstrap-signed `/auth_token` requests and
/// session-signed requests for everything else.
///
/// A backend (the `dex-proxy` example, or any Swift server) builds a ``SignedRequest`` from its
/// own request type and calls ``authenticateBootstrap(_:)`` or ``authenticateSession(_:)``; on
/// failure it answers with the error's ``RequestVerificationError/httpStatus``,
/// ``RequestVerificationError/responseBody`` and a `Date` header.
public struct RequestAuthenticator: Sendable {
  /// The bootstrap keys accepted for `/auth_token`; list the old and new key during rotation.
  public let bootstrapKeys: [SigningSecret]
  /// Issues and checks sessions.
  public let issuer: SessionIssuer
  /// Checks timestamps, signatures and replays.
  public let verifier: RequestVerifier

  /// Creates an authenticator.
  public init(bootstrapKeys: [SigningSecret], issuer: SessionIssuer, verifier: RequestVerifier) {
    self.bootstrapKeys = bootstrapKeys
    self.issuer = issuer
    self.verifier = verifier
  }

  /// Verifies a request signed with a bootstrap key (`POST /auth_token`).
  public func authenticateBootstrap(_ request: SignedRequest) async throws(RequestVerificationError)
  {
    try await verifier.verify(request, secrets: bootstrapKeys)
  }

  /// Verifies a session-signed request and returns who made it.
  ///
  /// The session id in `x-dex-session` is checked first (authentic, accepted key, not expired),
  /// then the signature is verified with the secret derived from it.
  public func authenticateSession(
    _ request: SignedRequest
  ) async throws(RequestVerificationError) -> SessionClaims {
    guard let sessionID = request.sessionID else {
      throw .missingHeader(DexCloudHeader.session)
    }
    let claims = try issuer.validate(sessionID: sessionID)
    let secret = try issuer.secret(forSessionID: sessionID)
    try await verifier.verify(request, secrets: [secret])
    return claims
  }
}
