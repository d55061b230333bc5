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

  /// Checks a bootstrap-signed request's headers before its body is read (see
  /// ``RequestVerifier/validateHeaders(of:)``).
  public func validateBootstrapHeaders(_ request: SignedRequest) throws(RequestVerificationError) {
    try verifier.validateHeaders(of: request)
  }

  /// Verifies a bootstrap-signed request's signature without recording it against replay: a
  /// server that applies a budget next calls ``RequestVerifier/record(_:)`` only if it serves
  /// the request, so refused requests take no room in the replay cache.
  public func verifyBootstrapSignature(
    _ request: SignedRequest
  ) throws(RequestVerificationError) -> VerifiedSignature {
    try verifier.verifySignature(of: request, secrets: bootstrapKeys)
  }

  /// Checks a session-signed request's headers and session id before its body is read, and
  /// returns the session's claims: a request with a forged or expired session, or a timestamp
  /// outside the window, is refused without buffering its body.
  public func validateSessionHeaders(
    _ request: SignedRequest
  ) throws(RequestVerificationError) -> SessionClaims {
    guard let sessionID = request.sessionID else {
      throw .missingHeader(DexCloudHeader.session)
    }
    let claims = try issuer.validate(sessionID: sessionID)
    try verifier.validateHeaders(of: request)
    return claims
  }

  /// Verifies a session-signed request's session id and signature without recording it against
  /// replay, and returns who made it: a server that limits each session's rate next takes from
  /// the session's bucket and calls ``RequestVerifier/record(_:)`` only if it serves the
  /// request, so that a session over its limit takes no room in the replay cache.
  public func verifySessionSignature(
    _ request: SignedRequest
  ) throws(RequestVerificationError) -> (claims: SessionClaims, signature: VerifiedSignature) {
    guard let sessionID = request.sessionID else {
      throw .missingHeader(DexCloudHeader.session)
    }
    let claims = try issuer.validate(sessionID: sessionID)
    let secret = try issuer.secret(forSessionID: sessionID)
    return (claims, try verifier.verifySignature(of: request, secrets: [secret]))
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
