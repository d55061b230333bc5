import Foundation
import Testing

@testable import DexCloud
@testable import DexCloudServer

@Suite("Request verifier")
struct RequestVerifierTests {
  static let now: Int64 = 1_763_780_000
  static let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: TimeInterval(now)) }
  static let secret = SigningSecret("verifier-secret-1")!
  static let body = Data(#"{"image":"AAEC","prompt":"what is it?"}"#.utf8)
  static let path = "/v1/vision?lang=en%20GB"

  static func verifier(
    skew: Duration = .seconds(300), cache: any ReplayCache = InMemoryReplayCache(now: clock)
  ) -> RequestVerifier {
    RequestVerifier(allowedSkew: skew, replayCache: cache, now: clock)
  }

  static func signed(
    method: String = "POST", path: String = path, body: Data = body, at timestamp: Int64 = now,
    secret: SigningSecret = secret
  ) -> SignedRequest {
    let headers = RequestSigner(secret: secret).headers(
      method: method, path: path, body: body, timestamp: timestamp)
    return SignedRequest(method: method, path: path, headers: headers, body: body)
  }

  static func error(
    of request: SignedRequest, secrets: [SigningSecret] = [secret],
    verifier: RequestVerifier = verifier()
  ) async -> RequestVerificationError? {
    do {
      try await verifier.verify(request, secrets: secrets)
      return nil
    } catch {
      return error
    }
  }

  @Test("A correctly signed request is accepted")
  func accepts() async {
    #expect(await Self.error(of: Self.signed()) == nil)
  }

  @Test("Every single-field tamper is rejected")
  func tampers() async throws {
    let original = Self.signed()
    var tampered: [(String, SignedRequest)] = []
    var method = original; method.method = "PUT"; tampered.append(("method", method))
    var path = original; path.path = "/v1/visions?lang=en%20GB"; tampered.append(("path", path))
    var query = original; query.path = "/v1/vision?lang=en%20US"; tampered.append(("query", query))
    var dropped = original; dropped.path = "/v1/vision"; tampered.append(("dropped query", dropped))
    var timestamp = original; timestamp.timestamp = String(Self.now - 1);
    tampered.append(("timestamp", timestamp))
    var bodyByte = original
    var bytes = Array(original.body); bytes[5] ^= 0x01; bodyByte.body = Data(bytes)
    tampered.append(("body byte", bodyByte))
    var truncated = original; truncated.body = original.body.dropLast();
    tampered.append(("body length", truncated))
    let signature = try #require(original.signature)
    for position in [0, 31, 63] {
      var chars = Array(signature)
      chars[position] = chars[position] == "0" ? "1" : "0"
      var flipped = original; flipped.signature = String(chars)
      tampered.append(("signature char \(position)", flipped))
    }
    for (name, request) in tampered {
      let error = await Self.error(of: request)
      #expect(error == .signatureMismatch, "tampered \(name) must be refused")
    }
  }

  @Test("An upper-cased signature or a wrong length is malformed, not compared")
  func malformedSignatures() async throws {
    let original = Self.signed()
    let signature = try #require(original.signature)
    for bad in [
      signature.uppercased(), String(signature.dropLast()), signature + "0", "",
      "zz" + signature.dropFirst(2),
    ] {
      var request = original; request.signature = bad
      #expect(await Self.error(of: request) == .malformedSignature)
    }
  }

  @Test("Missing and malformed headers")
  func missingHeaders() async {
    var noTimestamp = Self.signed(); noTimestamp.timestamp = nil
    #expect(await Self.error(of: noTimestamp) == .missingHeader("x-timestamp"))
    var noSignature = Self.signed(); noSignature.signature = nil
    #expect(await Self.error(of: noSignature) == .missingHeader("x-signature"))
    for bad in ["", "-5", "17637800 00", "1.5", "1e9", "9999999999999", "１２３"] {
      var request = Self.signed(); request.timestamp = bad
      #expect(await Self.error(of: request) == .malformedTimestamp, "timestamp \(bad)")
    }
  }

  @Test("Stale and future timestamps are refused; the window edges are accepted")
  func timestampWindow() async {
    #expect(
      await Self.error(of: Self.signed(at: Self.now - 301))
        == .timestampOutOfWindow(skewSeconds: -301))
    #expect(
      await Self.error(of: Self.signed(at: Self.now + 301))
        == .timestampOutOfWindow(skewSeconds: 301))
    #expect(await Self.error(of: Self.signed(at: Self.now - 300)) == nil)
    #expect(await Self.error(of: Self.signed(at: Self.now + 300)) == nil)
    let tight = Self.verifier(skew: .seconds(10))
    #expect(
      await Self.error(of: Self.signed(at: Self.now - 11), verifier: tight)
        == .timestampOutOfWindow(skewSeconds: -11))
  }

  @Test("A replayed request is refused, a re-signed one is not")
  func replay() async {
    let verifier = Self.verifier()
    let request = Self.signed()
    #expect(await Self.error(of: request, verifier: verifier) == nil)
    #expect(await Self.error(of: request, verifier: verifier) == .replayed)
    #expect(await Self.error(of: Self.signed(at: Self.now + 1), verifier: verifier) == nil)
  }

  @Test("Rejected requests never enter the replay cache")
  func rejectedNotCached() async {
    let cache = InMemoryReplayCache(now: Self.clock)
    var request = Self.signed()
    request.body = Data("other".utf8)
    #expect(
      await Self.error(of: request, verifier: Self.verifier(cache: cache)) == .signatureMismatch)
    #expect(await cache.count == 0)
  }

  @Test("A session signature verifies without a replay record until the server records it")
  func sessionSignatureIsRecordedOnlyWhenAsked() async throws {
    let issuer = SessionIssuer(
      keyring: ServerKeyring(current: SessionIssuerTests.key("k1", "server-one")), now: Self.clock)
    let cache = InMemoryReplayCache(now: Self.clock)
    let authenticator = RequestAuthenticator(
      bootstrapKeys: [], issuer: issuer, verifier: Self.verifier(cache: cache))
    let session = try issuer.issue(subject: "phone")
    var request = Self.signed(secret: session.sessionSecret)
    request.sessionID = session.sessionID
    for _ in 0..<2 {
      let (claims, _) = try authenticator.verifySessionSignature(request)
      #expect(claims.subject == "phone")
    }
    #expect(await cache.count == 0, "verifying records nothing")
    let (_, verified) = try authenticator.verifySessionSignature(request)
    try await authenticator.verifier.record(verified)
    #expect(await cache.count == 1)
    await #expect(throws: RequestVerificationError.replayed) {
      try await authenticator.verifier.record(verified)
    }
    await #expect(throws: RequestVerificationError.replayed) {
      _ = try await authenticator.authenticateSession(request)
    }
    var forged = Self.signed(secret: SigningSecret("not-the-session-secret")!)
    forged.sessionID = session.sessionID
    #expect(throws: RequestVerificationError.signatureMismatch) {
      _ = try authenticator.verifySessionSignature(forged)
    }
  }

  @Test("A rotated key: old and new both accepted during the overlap")
  func rotation() async throws {
    let new = try #require(SigningSecret("verifier-secret-2"))
    let verifier = Self.verifier()
    #expect(
      await Self.error(
        of: Self.signed(secret: Self.secret), secrets: [new, Self.secret], verifier: verifier)
        == nil)
    #expect(
      await Self.error(
        of: Self.signed(at: Self.now + 1, secret: new), secrets: [new, Self.secret],
        verifier: verifier) == nil)
    #expect(
      await Self.error(
        of: Self.signed(at: Self.now + 2, secret: Self.secret), secrets: [new], verifier: verifier)
        == .signatureMismatch)
  }

  @Test("The replay cache is bounded, fails closed when full, and frees expired entries")
  func boundedCache() async throws {
    final class Clock: @unchecked Sendable { var now = Date(timeIntervalSince1970: 1000) }
    let clock = Clock()
    let cache = InMemoryReplayCache(capacity: 3, now: { clock.now })
    for index in 0..<3 {
      #expect(
        try await cache.insertIfAbsent("sig\(index)", expiresAt: Date(timeIntervalSince1970: 1010)))
    }
    #expect(
      try await cache.insertIfAbsent("sig0", expiresAt: Date(timeIntervalSince1970: 1010)) == false)
    await #expect(throws: RequestVerificationError.replayCacheFull) {
      try await cache.insertIfAbsent("sig3", expiresAt: Date(timeIntervalSince1970: 1010))
    }
    clock.now = Date(timeIntervalSince1970: 1011)
    #expect(try await cache.insertIfAbsent("sig3", expiresAt: Date(timeIntervalSince1970: 1020)))
    #expect(await cache.count == 1)
  }

  @Test("Pruning goes by expiry: entries expiring at different times leave in turn")
  func pruningByExpiry() async throws {
    final class Clock: @unchecked Sendable { var now = Date(timeIntervalSince1970: 1000) }
    let clock = Clock()
    let cache = InMemoryReplayCache(capacity: 3, now: { clock.now })
    #expect(try await cache.insertIfAbsent("early", expiresAt: Date(timeIntervalSince1970: 1005)))
    #expect(
      try await cache.insertIfAbsent("half", expiresAt: Date(timeIntervalSince1970: 1005.5)))
    #expect(try await cache.insertIfAbsent("late", expiresAt: Date(timeIntervalSince1970: 1030)))
    // 1005.2: "early" has expired, "half" (same second, rounded up) has not.
    clock.now = Date(timeIntervalSince1970: 1005.2)
    #expect(try await cache.insertIfAbsent("new1", expiresAt: Date(timeIntervalSince1970: 1040)))
    await #expect(throws: RequestVerificationError.replayCacheFull) {
      try await cache.insertIfAbsent("new2", expiresAt: Date(timeIntervalSince1970: 1040))
    }
    #expect(try await !cache.insertIfAbsent("half", expiresAt: Date(timeIntervalSince1970: 1040)))
    // "half" expires; re-inserted, it holds its new expiry, not the group it first sat in.
    clock.now = Date(timeIntervalSince1970: 1006)
    #expect(try await cache.insertIfAbsent("half", expiresAt: Date(timeIntervalSince1970: 1050)))
    await #expect(throws: RequestVerificationError.replayCacheFull) {
      try await cache.insertIfAbsent("new2", expiresAt: Date(timeIntervalSince1970: 1050))
    }
    clock.now = Date(timeIntervalSince1970: 1031)
    #expect(try await cache.insertIfAbsent("new2", expiresAt: Date(timeIntervalSince1970: 1060)))
    #expect(try await !cache.insertIfAbsent("half", expiresAt: Date(timeIntervalSince1970: 1060)))
    #expect(await cache.count == 3)
    clock.now = Date(timeIntervalSince1970: 1061)
    #expect(try await cache.insertIfAbsent("half", expiresAt: Date(timeIntervalSince1970: 1070)))
    #expect(await cache.count == 1)
  }

  @Test("Headers are checked without the body; a verified signature is recorded only on request")
  func headersThenSignatureThenRecord() async throws {
    let cache = InMemoryReplayCache(now: Self.clock)
    let verifier = Self.verifier(cache: cache)
    var headersOnly = Self.signed()
    headersOnly.body = Data()
    try verifier.validateHeaders(of: headersOnly)
    for (bad, expected): (SignedRequest, RequestVerificationError) in [
      (Self.signed(at: Self.now - 301), .timestampOutOfWindow(skewSeconds: -301)),
      (
        SignedRequest(method: "POST", path: "/", body: Data(), timestamp: "1", signature: nil),
        .missingHeader(DexCloudHeader.signature)
      ),
      (
        SignedRequest(
          method: "POST", path: "/", body: Data(), timestamp: "x1", signature: "00"),
        .malformedTimestamp
      ),
    ] {
      #expect(throws: expected) { try verifier.validateHeaders(of: bad) }
    }
    let request = Self.signed()
    let verified = try verifier.verifySignature(of: request, secrets: [Self.secret])
    #expect(await cache.count == 0)
    #expect(verified.expiresAt == Date(timeIntervalSince1970: TimeInterval(Self.now + 301)))
    try await verifier.record(verified)
    #expect(await cache.count == 1)
    await #expect(throws: RequestVerificationError.replayed) { try await verifier.record(verified) }
    #expect(await Self.error(of: request, verifier: verifier) == .replayed)
  }

  @Test("Errors carry a status, a stable code and an OpenAI-style body without secrets")
  func errorBodies() throws {
    let error = RequestVerificationError.timestampOutOfWindow(skewSeconds: 400)
    #expect(error.httpStatus == 401)
    #expect(RequestVerificationError.replayCacheFull.httpStatus == 503)
    let detail = try #require(APIErrorDetail.parse(error.responseBody))
    #expect(detail.code == "timestamp_out_of_window")
    #expect(detail.type == "authentication_error")
  }
}
