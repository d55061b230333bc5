import Crypto
import Foundation

/// Signs requests with HMAC-SHA256 under one secret.
///
/// The client uses it with the bootstrap key for `/auth_token` and with the session secret for
/// everything else; the verifier uses the same code path to recompute signatures, so the two
/// sides can never drift apart.
public struct RequestSigner: Sendable {
  /// `SymmetricKey` is an immutable value (copy-on-write storage that is never mutated after
  /// creation) but swift-crypto 3 does not mark it `Sendable` on Linux; the box says so.
  private struct KeyBox: @unchecked Sendable {
    let key: SymmetricKey
  }

  private let box: KeyBox
  private var key: SymmetricKey { box.key }

  /// Creates a signer for `secret`; the key is derived once and reused for every signature.
  public init(secret: SigningSecret) {
    self.init(key: secret.symmetricKey)
  }

  /// Creates a signer for raw key bytes (the RFC 4231 test vectors' keys are not UTF-8).
  package init(key: SymmetricKey) {
    self.box = KeyBox(key: key)
  }

  /// The raw 32-byte HMAC-SHA256 of the canonical string.
  func authenticationCode(for canonical: CanonicalRequest) -> [UInt8] {
    authenticationCode(for: canonical.utf8Bytes)
  }

  /// The HMAC-SHA256 core every signature and every session tag goes through, client and
  /// server alike (checked against RFC 4231 in tests).
  package func authenticationCode<Message: DataProtocol>(for message: Message) -> [UInt8] {
    Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
  }

  /// Whether `code` is the HMAC-SHA256 of `message`, compared in constant time.
  package func isValid<Message: DataProtocol>(
    authenticationCode code: some ContiguousBytes, for message: Message
  ) -> Bool {
    HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: key)
  }

  /// The lower-case hex signature of `canonical`, as sent in `x-signature`.
  public func signature(for canonical: CanonicalRequest) -> String {
    Hex.encode(authenticationCode(for: canonical))
  }

  /// Whether `signatureBytes` is the HMAC of `canonical`, compared in constant time.
  package func isValid(signatureBytes: [UInt8], for canonical: CanonicalRequest) -> Bool {
    isValid(authenticationCode: signatureBytes, for: canonical.utf8Bytes)
  }

  /// The `x-timestamp` and `x-signature` headers for one request.
  ///
  /// - Parameters:
  ///   - method: the HTTP method (upper-cased for signing).
  ///   - path: the request target exactly as sent, see ``CanonicalRequest``.
  ///   - body: the raw body bytes (empty for none).
  ///   - timestamp: the signing time in Unix seconds.
  public func headers(
    method: String, path: String, body: Data, timestamp: Int64
  ) -> [String:
    String]
  {
    let canonical = CanonicalRequest(
      method: method, path: path, timestamp: String(timestamp), body: body)
    return [
      DexCloudHeader.timestamp: canonical.timestamp,
      DexCloudHeader.signature: signature(for: canonical),
    ]
  }
}
