import DexCloud
import Foundation

/// Issues and checks stateless session credentials on the server.
///
/// A session id is `dx1.<keyID>.<base64url(subject)>.<expiry>.<nonce>.<tag>`, where `nonce` is
/// 16 random bytes (so two sessions for one subject in the same second differ) and `tag` is the
/// base64url HMAC-SHA256 of everything before it under the server key, so the id carries its
/// subject and expiry and cannot be forged. The session secret is the base64url
/// HMAC-SHA256 of `"dex-session-secret:v1\n" + id` under the same key: any instance holding the
/// keyring re-derives it from the id, so no per-session state is stored or shared.
public struct SessionIssuer: Sendable {
  /// The server secrets in use.
  public let keyring: ServerKeyring
  /// How long a new session lives (default one hour).
  public let lifetime: Duration
  private let now: @Sendable () -> Date

  static let idPrefix = "dx1"
  static let maximumIDLength = 512
  static let maximumSubjectLength = 128

  /// Creates an issuer.
  public init(
    keyring: ServerKeyring, lifetime: Duration = .seconds(3600),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.keyring = keyring
    self.lifetime = lifetime
    self.now = now
  }

  /// Why a session could not be issued.
  public enum IssueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The subject is empty, longer than 128 bytes or contains control characters.
    case invalidSubject

    /// A short explanation.
    public var description: String {
      "A session subject must be 1–128 bytes of printable text."
    }
  }

  /// Issues a new session for `subject` under the current key.
  public func issue(subject: String) throws(IssueError) -> AuthTokenResponse {
    guard (1...Self.maximumSubjectLength).contains(subject.utf8.count),
      !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else { throw .invalidSubject }
    let key = keyring.current
    let lifetimeSeconds = max(1, lifetime.components.seconds)
    let expiry = Int64(now().timeIntervalSince1970.rounded(.down)) + lifetimeSeconds
    var generator = SystemRandomNumberGenerator()
    let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let unsigned = [
      Self.idPrefix, key.id, Base64URL.encode(Array(subject.utf8)), String(expiry),
      Base64URL.encode(nonce),
    ].joined(separator: ".")
    let id = unsigned + "." + Base64URL.encode(Self.tag(for: unsigned, key: key))
    return AuthTokenResponse(
      sessionID: id, sessionSecret: Self.secret(forID: id, key: key),
      expiresAt: expiry, expiresIn: lifetimeSeconds)
  }

  /// Checks a session id: well-formed, authentic under an accepted key, not expired.
  public func validate(sessionID: String) throws(RequestVerificationError) -> SessionClaims {
    try validatedKey(for: sessionID).claims
  }

  /// The session secret for a valid `sessionID`, to verify a request signed with it.
  public func secret(
    forSessionID sessionID: String
  ) throws(RequestVerificationError)
    -> SigningSecret
  {
    let (_, key) = try validatedKey(for: sessionID)
    return Self.secret(forID: sessionID, key: key)
  }

  private func validatedKey(
    for sessionID: String
  ) throws(RequestVerificationError) -> (
    claims: SessionClaims, key: ServerKey
  ) {
    guard sessionID.utf8.count <= Self.maximumIDLength else { throw .invalidSession }
    let parts = sessionID.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 6, parts[0] == Self.idPrefix,
      let subjectData = Base64URL.decode(parts[2]),
      let subject = String(data: subjectData, encoding: .utf8),
      let expiry = RequestVerifier.parseTimestamp(parts[3]),
      Base64URL.decode(parts[4])?.count == 16,
      let tag = Base64URL.decode(parts[5]), tag.count == 32
    else { throw .invalidSession }
    let current = now()
    guard let key = keyring.key(id: parts[1], at: current) else { throw .invalidSession }
    let unsigned = parts[0..<5].joined(separator: ".")
    guard
      RequestSigner(secret: key.secret).isValid(
        authenticationCode: tag, for: Data(unsigned.utf8))
    else { throw .invalidSession }
    let expiresAt = Date(timeIntervalSince1970: TimeInterval(expiry))
    guard expiresAt > current else { throw .sessionExpired }
    return (SessionClaims(subject: subject, expiresAt: expiresAt, keyID: key.id), key)
  }

  private static func tag(for unsigned: String, key: ServerKey) -> [UInt8] {
    RequestSigner(secret: key.secret).authenticationCode(for: Data(unsigned.utf8))
  }

  private static func secret(forID id: String, key: ServerKey) -> SigningSecret {
    let mac = RequestSigner(secret: key.secret).authenticationCode(
      for: Data(("dex-session-secret:v1\n" + id).utf8))
    return SigningSecret(nonEmpty: Base64URL.encode(mac))
  }
}

extension SessionIssuer.IssueError: LocalizedError {
  /// The same text as ``description``, so `localizedDescription` says what went wrong.
  public var errorDescription: String? { description }
}
