import Foundation
import Testing

@testable import DexCloud
@testable import DexCloudServer

@Suite("Session issuer")
struct SessionIssuerTests {
  final class Clock: @unchecked Sendable {
    var now = Date(timeIntervalSince1970: 1_763_780_000)
  }

  static func key(_ id: String, _ secret: String, until: Date? = nil) -> ServerKey {
    ServerKey(id: id, secret: SigningSecret(secret)!, acceptedUntil: until)!
  }

  @Test("Issued sessions validate and carry subject, expiry and key id")
  func issueAndValidate() throws {
    let clock = Clock()
    let issuer = SessionIssuer(
      keyring: ServerKeyring(current: Self.key("k1", "server-one")), lifetime: .seconds(600),
      now: { clock.now })
    let token = try issuer.issue(subject: "install-42 ✓")
    #expect(token.expiresIn == 600)
    #expect(token.expiresAt == 1_763_780_600)
    #expect(token.sessionID.hasPrefix("dx1.k1."))
    let twin = try issuer.issue(subject: "install-42 ✓")
    #expect(twin.sessionID != token.sessionID, "same subject, same second: still distinct")
    #expect(twin.sessionSecret != token.sessionSecret)
    let claims = try issuer.validate(sessionID: token.sessionID)
    #expect(claims.subject == "install-42 ✓")
    #expect(claims.keyID == "k1")
    #expect(try issuer.secret(forSessionID: token.sessionID) == token.sessionSecret)
    // The secret is not derivable from, nor contained in, the id.
    #expect(!token.sessionID.contains(token.sessionSecret.value))
  }

  @Test("Two issuers sharing the keyring agree without shared state")
  func stateless() throws {
    let keyring = ServerKeyring(current: Self.key("k1", "server-one"))
    let token = try SessionIssuer(keyring: keyring).issue(subject: "a")
    let other = SessionIssuer(keyring: keyring)
    #expect(try other.secret(forSessionID: token.sessionID) == token.sessionSecret)
  }

  @Test("Expired sessions are refused")
  func expiry() throws {
    let clock = Clock()
    let issuer = SessionIssuer(
      keyring: ServerKeyring(current: Self.key("k1", "server-one")), lifetime: .seconds(60),
      now: { clock.now })
    let token = try issuer.issue(subject: "a")
    clock.now = clock.now.addingTimeInterval(59)
    #expect(throws: Never.self) { try issuer.validate(sessionID: token.sessionID) }
    clock.now = clock.now.addingTimeInterval(1)
    #expect(throws: RequestVerificationError.sessionExpired) {
      try issuer.validate(sessionID: token.sessionID)
    }
  }

  @Test("Forged, tampered and malformed ids are refused")
  func forgery() throws {
    let issuer = SessionIssuer(keyring: ServerKeyring(current: Self.key("k1", "server-one")))
    let token = try issuer.issue(subject: "alice")
    var parts = token.sessionID.split(separator: ".").map(String.init)
    // Change the subject to "mallory" but keep the tag.
    parts[2] = Base64URL.encode(Array("mallory".utf8))
    let forgedSubject = parts.joined(separator: ".")
    parts = token.sessionID.split(separator: ".").map(String.init)
    parts[3] = String(Int64(parts[3])! + 86_400)
    let extended = parts.joined(separator: ".")
    // The same tag spelled with its last character's two unused bits set: a lenient base64
    // decoder reads the same 32 bytes, so without canonical decoding this id validated.
    parts = token.sessionID.split(separator: ".").map(String.init)
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    let last = try #require(parts[5].last.flatMap { alphabet.firstIndex(of: $0) })
    parts[5] = parts[5].dropLast() + String(alphabet[last | 1])
    let respelled = parts.joined(separator: ".")
    let attacker = try SessionIssuer(keyring: ServerKeyring(current: Self.key("k1", "guessed")))
      .issue(subject: "alice")
    for bad in [
      forgedSubject, extended, respelled, attacker.sessionID, "", "dx1", "dx1.k1.a.b.c.d",
      String(repeating: "a", count: 600), token.sessionID + "x",
      "dx2" + token.sessionID.dropFirst(3),
    ] {
      #expect(throws: RequestVerificationError.invalidSession) {
        try issuer.validate(sessionID: bad)
      }
    }
    #expect(throws: SessionIssuer.IssueError.invalidSubject) { try issuer.issue(subject: "") }
    #expect(throws: SessionIssuer.IssueError.invalidSubject) { try issuer.issue(subject: "a\nb") }
    #expect(throws: SessionIssuer.IssueError.invalidSubject) {
      try issuer.issue(subject: String(repeating: "x", count: 129))
    }
  }

  @Test("Server secret rotation: old sessions work during the overlap, then stop")
  func rotation() throws {
    let clock = Clock()
    let old = Self.key("2026a", "old-server-secret")
    let before = SessionIssuer(
      keyring: ServerKeyring(current: old), lifetime: .seconds(3600), now: { clock.now })
    let oldToken = try before.issue(subject: "a")

    let retiring = Self.key("2026a", "old-server-secret", until: clock.now.addingTimeInterval(1800))
    let after = SessionIssuer(
      keyring: ServerKeyring(current: Self.key("2026b", "new-server-secret"), previous: [retiring]),
      lifetime: .seconds(3600), now: { clock.now })
    let newToken = try after.issue(subject: "b")
    #expect(newToken.sessionID.hasPrefix("dx1.2026b."))
    #expect(try after.validate(sessionID: oldToken.sessionID).keyID == "2026a")
    #expect(try after.secret(forSessionID: oldToken.sessionID) == oldToken.sessionSecret)
    clock.now = clock.now.addingTimeInterval(1800)
    #expect(throws: RequestVerificationError.invalidSession) {
      try after.validate(sessionID: oldToken.sessionID)
    }
    #expect(try after.validate(sessionID: newToken.sessionID).subject == "b")
  }

  @Test("Key ids are restricted to a safe alphabet")
  func keyIDs() throws {
    let secret = try #require(SigningSecret("x"))
    #expect(ServerKey(id: "k.1", secret: secret) == nil)
    #expect(ServerKey(id: "", secret: secret) == nil)
    #expect(ServerKey(id: String(repeating: "k", count: 33), secret: secret) == nil)
    #expect(ServerKey(id: "k_1-A", secret: secret) != nil)
  }

  @Test("The /auth_token JSON shape uses snake_case and round-trips")
  func responseShape() throws {
    let issuer = SessionIssuer(keyring: ServerKeyring(current: Self.key("k1", "server-one")))
    let token = try issuer.issue(subject: "a")
    let data = try JSONEncoder().encode(token)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(
      Set(object.keys) == [
        "session_id", "session_secret", "expires_at", "expires_in", "token_type",
      ])
    #expect(object["token_type"] as? String == "dex-session")
    #expect(try JSONDecoder().decode(AuthTokenResponse.self, from: data) == token)
    #expect(!"\(token)".contains(token.sessionSecret.value))
  }
}
