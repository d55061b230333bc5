import DexCloud
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// Authentication, replay, body-size and rate limits, checked with raw, hand-signed requests.
@Suite struct ProxySecurityTests {
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func healthAnswers() async throws {
    try await ProxyHarness.with { proxy in
      let response = try await proxy.send("GET", "/health")
      #expect(response.statusCode == 200)
      #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"ok"}"#)
      #expect(response.value(forHeader: "Date") != nil)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func authTokenIssuesASessionTheVerifierAccepts() async throws {
    try await ProxyHarness.with { proxy in
      let session = try await proxy.rawSession()
      #expect(session.sessionID.hasPrefix("dx1.k1."))
      #expect(session.expiresIn == 3600)
      #expect(session.tokenType == "dex-session")
      let body = try visionBody()
      let response = try await proxy.sendVision(
        body, secret: session.sessionSecret, session: session.sessionID)
      #expect(response.statusCode == 200)
      let reply = try JSONDecoder().decode(VisionResponse.self, from: response.body)
      #expect(reply.role == "assistant")
      #expect(reply.content == StubUpstream.cleanJSON)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func wrongBootstrapKeyIsRefused() async throws {
    try await ProxyHarness.with { proxy in
      let body = try JSONEncoder().encode(AuthTokenRequest(subject: "x"))
      let response = try await proxy.send(
        "POST", "/auth_token",
        headers: ProxyHarness.signed(
          "/auth_token", body: body, secret: SigningSecret("wrong-key")!),
        body: body)
      #expect(response.statusCode == 401)
      #expect(errorCode(response.body) == "invalid_signature")
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func tamperedRequestsAreRefused() async throws {
    try await ProxyHarness.with { proxy in
      let session = try await proxy.rawSession()
      let body = try visionBody()
      let headers = ProxyHarness.signed(
        "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)

      var altered = body
      altered[altered.count - 3] ^= 0x01
      let tampered = try await proxy.send("POST", "/vision", headers: headers, body: altered)
      #expect(tampered.statusCode == 401)
      #expect(errorCode(tampered.body) == "invalid_signature")

      var forged = headers
      // One character of the id's tag changed to another (not "AA" pasted over the end, which
      // an id already ending in "AA" left as it was: a CI run once sent the real id).
      let tagCharacter = session.sessionID.index(session.sessionID.endIndex, offsetBy: -2)
      var forgedID = session.sessionID
      forgedID.replaceSubrange(
        tagCharacter...tagCharacter, with: session.sessionID[tagCharacter] == "A" ? "B" : "A")
      #expect(forgedID != session.sessionID)
      forged[DexCloudHeader.session] = forgedID
      let forgedResponse = try await proxy.send("POST", "/vision", headers: forged, body: body)
      #expect(forgedResponse.statusCode == 401)
      #expect(errorCode(forgedResponse.body) == "invalid_session")

      var anonymous = headers
      anonymous[DexCloudHeader.session] = nil
      let missing = try await proxy.send("POST", "/vision", headers: anonymous, body: body)
      #expect(missing.statusCode == 401)
      #expect(errorCode(missing.body) == "missing_signature_header")

      // Signed with the bootstrap key instead of the session secret.
      let wrongSecret = try await proxy.sendVision(
        body, secret: ProxyHarness.bootstrapKey, session: session.sessionID)
      #expect(wrongSecret.statusCode == 401)
      #expect(proxy.upstream.received.isEmpty)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func replayedRequestIsRefused() async throws {
    try await ProxyHarness.with { proxy in
      try await proxy.expectAReplayIsRefused()
      #expect(proxy.upstream.received.count == 1)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func invalidVisionBodyIsA400() async throws {
    try await ProxyHarness.with { proxy in
      let session = try await proxy.rawSession()
      for body in [Data("not json".utf8), Data(#"{"image":"***not base64***"}"#.utf8)] {
        let response = try await proxy.sendVision(
          body, secret: session.sessionSecret, session: session.sessionID)
        #expect(response.statusCode == 400)
        #expect(errorCode(response.body) == "invalid_body")
      }
      #expect(proxy.upstream.received.isEmpty)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func oversizedBodyIsA413() async throws {
    try await ProxyHarness.with(configure: { $0.maximumBodyBytes = 16 << 10 }) { proxy in
      let big = Data(repeating: UInt8(ascii: "A"), count: 64 << 10)
      let response = try await proxy.send("POST", "/vision", body: big)
      #expect(response.statusCode == 413)
      #expect(errorCode(response.body) == "request_too_large")

      // Through the real client: the proxy's refusal surfaces as a 413 error.
      let error = await #expect(throws: DexCloudError.self) {
        _ = try await proxy.vision().identify(
          imageData: Data(repeating: 0xAB, count: 32 << 10), categoryHint: nil)
      }
      #expect(error?.statusCode == 413)
      #expect(proxy.upstream.received.isEmpty)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func rateLimitAnswers429WithRetryAfter() async throws {
    try await ProxyHarness.with(configure: {
      $0.rateLimit = RateLimit(burst: 3, refillPerSecond: 0.05)
    }) { proxy in
      var statuses: [Int] = []
      var last: TransportResponse?
      for _ in 0..<4 {
        let response = try await proxy.send("POST", "/auth_token", body: Data("{}".utf8))
        statuses.append(response.statusCode)
        last = response
      }
      #expect(statuses == [401, 401, 401, 429])
      let limited = try #require(last)
      #expect(errorCode(limited.body) == "rate_limit_exceeded")
      let retryAfter = try #require(limited.value(forHeader: "Retry-After").flatMap(Int.init))
      #expect((1...20).contains(retryAfter))
      // Health is not rate limited.
      #expect(try await proxy.send("GET", "/health").statusCode == 200)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func validSessionsAreLimitedPerAddressAndPerSession() async throws {
    try await ProxyHarness.with(configure: {
      $0.rateLimit = RateLimit(burst: 3, refillPerSecond: 0.05)
    }) { proxy in
      let session = try await proxy.rawSession()  // one of the address's three tokens
      let responses = try await proxy.sendVisions(3, prompt: "Request", under: session)
      // Each /vision request takes a token from the address and one from the session: the
      // address runs out first.
      #expect(responses.map(\.statusCode) == [200, 200, 429])
      #expect(try await proxy.send("POST", "/auth_token", body: Data("{}".utf8)).statusCode == 429)
      // A made-up session id is refused at once by its authentication (401), before it takes
      // a token, a slot or its body: it can reach nothing a bucket would protect.
      let forged = try await proxy.send(
        "POST", "/vision", headers: [DexCloudHeader.session: "dx1.k1.made.up"],
        body: try visionBody())
      #expect(forged.statusCode == 401)
    }
  }

  /// Behind a trusted balancer, clients of many addresses sharing one session still meet the
  /// session's own bucket.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func oneSessionFromManyAddressesMeetsItsOwnBucket() async throws {
    try await ProxyHarness.with(configure: {
      $0.rateLimit = RateLimit(burst: 2, refillPerSecond: 0.05)
      $0.trustedProxies = TrustedProxies("127.0.0.1/32") ?? .none
    }) { proxy in
      let session = try await proxy.rawSession()
      var statuses: [Int] = []
      for index in 0..<3 {
        let body = try visionBody("Request \(index)")
        var headers = ProxyHarness.signed(
          "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)
        headers["X-Forwarded-For"] = "203.0.113.\(10 + index)"
        statuses.append(
          try await proxy.send("POST", "/vision", headers: headers, body: body).statusCode)
      }
      #expect(statuses == [200, 200, 429])
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func logsCarryNoSecrets() async throws {
    try await ProxyHarness.with { proxy in
      let client = proxy.client()
      let service = DexVisionService(client: client)
      _ = try await service.identify(imageData: sampleImage, categoryHint: .plant)
      let session = try await proxy.rawSession()
      let body = try visionBody()
      let headers = ProxyHarness.signed(
        "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)
      _ = try await proxy.send("POST", "/vision", headers: headers, body: body)
      _ = try await proxy.send("POST", "/vision", headers: headers, body: body)  // replay

      let lines = proxy.logs.lines.filter { $0.contains("dexkit.proxy") }
      #expect(lines.contains { $0.contains("Request handled") && $0.contains("route=/vision") })
      #expect(lines.contains { $0.contains("outcome=replayed_request") })
      let text = lines.joined(separator: "\n")
      let secrets = [
        ProxyHarness.bootstrapKeyText, ProxyHarness.serverSecretText, ProxyHarness.apiKeyText,
        session.sessionID, String(session.sessionID.prefix(20)),
        try #require(headers[DexCloudHeader.signature]),
        String(sampleImage.base64EncodedString().prefix(24)), "guessed the category",
      ]
      for secret in secrets {
        #expect(!text.contains(secret))
      }
    }
  }
}
