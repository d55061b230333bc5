import Crypto
import Foundation
import Testing

@testable import DexCloud

@Suite("Request signing")
struct SigningTests {
  /// RFC 4231 §4: HMAC-SHA256 test cases 1, 2, 3, 4, 6 and 7 (5 is a truncated output).
  static let rfc4231: [(key: [UInt8], data: [UInt8], mac: String)] = [
    (
      [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    (
      Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
    (
      [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
      "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
    ),
    (
      Array(1...25), [UInt8](repeating: 0xcd, count: 50),
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
    ),
    (
      [UInt8](repeating: 0xaa, count: 131),
      Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ),
    (
      [UInt8](repeating: 0xaa, count: 131),
      Array(
        ("This is a test using a larger than block-size key and a larger than block-size "
          + "data. The key needs to be hashed before being used by the HMAC algorithm.").utf8),
      "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
    ),
  ]

  @Test("HMAC core matches RFC 4231", arguments: 0..<6)
  func rfc4231Case(index: Int) {
    let vector = Self.rfc4231[index]
    let mac = RequestSigner(key: SymmetricKey(data: vector.key))
      .authenticationCode(for: Data(vector.data))
    #expect(Hex.encode(mac) == vector.mac)
  }

  @Test("Canonical string layout, empty-body digest and upper-cased method")
  func canonicalLayout() {
    let canonical = CanonicalRequest(
      method: "post", path: "/vision", timestamp: "1700000000", body: Data())
    #expect(
      canonical.stringValue
        == "POST\n/vision\n1700000000\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
  }

  /// Recorded with:
  /// `printf 'POST\n/vision\n1700000000\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' | openssl dgst -sha256 -hmac 'golden-secret'`
  /// and, for the query/UTF-8 case (body `{"prompt":"Grüße 🐸"}`):
  /// `printf 'POST\n/v1/vision?lang=en%%20GB&q=caf%%C3%%A9\n1700000000\n%s' $(printf '{"prompt":"Grüße 🐸"}' | sha256sum | cut -d' ' -f1) | openssl dgst -sha256 -hmac 'golden-secret'`
  @Test("Recorded openssl golden vectors")
  func recordedOpenSSLVectors() throws {
    let signer = RequestSigner(secret: try #require(SigningSecret("golden-secret")))
    let empty = signer.headers(
      method: "POST", path: "/vision", body: Data(), timestamp: 1_700_000_000)
    #expect(
      empty[DexCloudHeader.signature]
        == "7908153855644ecdfb9f21a448f7a55134f491a81368e4415fe52afbca24b62d")
    #expect(empty[DexCloudHeader.timestamp] == "1700000000")
    let utf8 = signer.headers(
      method: "POST", path: "/v1/vision?lang=en%20GB&q=caf%C3%A9",
      body: Data(#"{"prompt":"Grüße 🐸"}"#.utf8), timestamp: 1_700_000_000)
    #expect(
      utf8[DexCloudHeader.signature]
        == "af783b9249bcb62ce3a945a63db84093618469fba5fa5f313243ddbd455f4387")
  }

  static let goldenCases: [(name: String, method: String, path: String, body: [UInt8])] = [
    ("empty body", "POST", "/auth_token", []),
    (
      "UTF-8 body", "POST", "/vision",
      Array(#"{"image":"","prompt":"Qu'est-ce que c'est ? 🐸 Grüße"}"#.utf8)
    ),
    ("binary body", "PUT", "/upload", Array(0...255) + [0, 0xff, 0x0a, 0x0d]),
    (
      "path with query and escapes", "get", "/api%20v1/vision?lang=en%20GB&tag=caf%C3%A9&a=1&a=2",
      []
    ),
  ]

  @Test("Signatures match Python's hmac/hashlib", arguments: 0..<4)
  func matchesPython(index: Int) async throws {
    let vector = Self.goldenCases[index]
    let secretText = "s3cr\u{E9}t-\(index)-key"
    let secret = try #require(SigningSecret(secretText))
    let ours = RequestSigner(secret: secret).headers(
      method: vector.method, path: vector.path, body: Data(vector.body), timestamp: 1_763_780_000)
    let python = try await ExternalHMAC.signature(
      secret: secretText, method: vector.method, path: vector.path, timestamp: "1763780000",
      body: Data(vector.body))
    #expect(python.count == 64, "python3 must produce a digest for \(vector.name)")
    #expect(ours[DexCloudHeader.signature] == python, "\(vector.name)")
  }

  @Test("HMAC core matches Python on random keys and messages")
  func randomAgainstPython() async throws {
    var generator = SystemRandomNumberGenerator()
    for length in [0, 1, 63, 64, 65, 1000] {
      let key = (0..<(length % 97 + 1)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let ours = Hex.encode(
        RequestSigner(key: SymmetricKey(data: key)).authenticationCode(for: Data(message)))
      #expect(try await ExternalHMAC.hmacSHA256(key: key, message: message) == ours)
    }
  }

  @Test("The signed path of a URL keeps escapes and the query exactly")
  func signedPathOfURL() throws {
    let url = try #require(URL(string: "https://api.example.com/api%20v1/vision?lang=en%20GB&x=1"))
    #expect(ApiClient.signedPath(of: url) == "/api%20v1/vision?lang=en%20GB&x=1")
    let bare = try #require(URL(string: "https://api.example.com"))
    #expect(ApiClient.signedPath(of: bare) == "/")
  }

  @Test("Hex decoding is strict: lower-case only, even length")
  func strictHex() {
    #expect(Hex.decodeLowercase("00ff10") == [0, 255, 16])
    #expect(Hex.decodeLowercase("00FF10") == nil)
    #expect(Hex.decodeLowercase("0") == nil)
    #expect(Hex.decodeLowercase("zz") == nil)
  }

  @Test("Secrets never print")
  func secretsRedact() throws {
    let secret = try #require(SigningSecret("do-not-print-me"))
    let credential = SessionCredential(sessionID: "id", secret: secret, expiresAt: Date())
    var dumped = ""
    dump(credential, to: &dumped)
    for text in ["\(secret)", String(reflecting: secret), "\(credential)", dumped] {
      #expect(!text.contains("do-not-print-me"))
    }
    #expect(SigningSecret("   ") == nil)
    #expect(SigningSecret("") == nil)
  }
}
