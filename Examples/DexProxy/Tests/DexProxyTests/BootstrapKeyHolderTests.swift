import DexCloud
import DexExamplesTestSupport
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// More of what a holder of the app's bootstrap key can try (see ``HostileClientTests``): many
/// sessions from one address, bodies sent to requests that cannot verify, the default subject,
/// requests refused upstream for what they carry, and refused sessions filling the replay cache.
@Suite struct BootstrapKeyHolderTests {
  /// Sessions minted in bulk do not multiply an address's rate: every `/vision` request takes a
  /// token from the address's bucket as well as the session's.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func sessionsFromOneAddressShareItsBucket() async throws {
    try await ProxyHarness.with(configure: {
      $0.rateLimit = RateLimit(burst: 5, refillPerSecond: 0.01)
    }) { proxy in
      // Two /auth_token requests take two of the address's five tokens.
      let first = try await proxy.rawSession()
      let second = try await proxy.rawSession()
      let statuses =
        try await proxy.sendVisions(2, prompt: "first", under: first).map(\.statusCode)
        + proxy.sendVisions(2, prompt: "second", under: second).map(\.statusCode)
      #expect(statuses == [200, 200, 200, 429])
      #expect(proxy.upstream.received.count == 3)
    }
  }

  /// A session's bucket is taken only by requests whose signature verifies: a session id is
  /// public (it travels in every request's headers), and requests that carry a victim's id but
  /// cannot sign, sent from other addresses, leave the victim's bucket full.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func requestsThatCannotSignDoNotSpendASessionsBucket() async throws {
    try await ProxyHarness.with(configure: {
      $0.rateLimit = RateLimit(burst: 3, refillPerSecond: 0.01)
      $0.trustedProxies = TrustedProxies("127.0.0.1") ?? .none
    }) { proxy in
      let victim = try await proxy.rawSession()
      let body = try visionBody("forged")
      for index in 0..<6 {
        var headers = ProxyHarness.signed(
          "/vision", body: body, secret: try #require(SigningSecret("not-the-session-secret")),
          session: victim.sessionID)
        headers["X-Forwarded-For"] = "203.0.113.\(10 + index)"
        let response = try await proxy.send("POST", "/vision", headers: headers, body: body)
        #expect(response.statusCode == 401, "forged request \(index)")
      }
      let statuses = try await proxy.sendVisions(3, prompt: "victim", under: victim)
        .map(\.statusCode)
      // The victim's address spent one token on /auth_token; its session's three are intact.
      #expect(statuses == [200, 200, 429])
      #expect(proxy.upstream.received.count == 2)
    }
  }

  /// A request its session's bucket refuses is not recorded against replay: sent again once
  /// the bucket has refilled, the same signed request is served (a refused request used to take
  /// a replay-cache slot, so one session over its limit could fill the cache for everyone).
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aRequestRefusedByItsSessionsBucketTakesNoReplaySlot() async throws {
    try await ProxyHarness.with(configure: {
      // One request, then one every two seconds: a loaded machine may take a while between two
      // requests, so an attempt whose second request came after a refill is tried again.
      $0.rateLimit = RateLimit(burst: 1, refillPerSecond: 0.5)
      $0.trustedProxies = TrustedProxies("127.0.0.1") ?? .none
    }) { proxy in
      var address = 0
      // Every request from an address of its own, so that only the session's bucket limits.
      func send(_ request: (Data, [String: String])) async throws -> Int {
        address += 1
        var headers = request.1
        headers["X-Forwarded-For"] = "203.0.113.\(address)"
        return try await proxy.send("POST", "/vision", headers: headers, body: request.0)
          .statusCode
      }
      var refused: (Data, [String: String])?
      for attempt in 1...4 where refused == nil {
        let owner = try await proxy.rawSession(forwardedFor: "198.51.100.\(attempt)")
        func signed(_ question: String) throws -> (Data, [String: String]) {
          let body = try visionBody(question)
          return (
            body,
            ProxyHarness.signed(
              "/vision", body: body, secret: owner.sessionSecret, session: owner.sessionID)
          )
        }
        let second = try signed("second")
        let started = ContinuousClock.now
        #expect(try await send(try signed("first")) == 200)
        let status = try await send(second)
        if status == 429 {
          refused = second
        } else {
          // Only a refill in between lets the second through.
          #expect(status == 200)
          #expect(ContinuousClock.now - started >= .seconds(2), "the session's bucket was empty")
        }
      }
      let second = try #require(refused, "the session's bucket never refused the second request")
      // Wait for the token to come back; a request recorded against replay would now be a 401.
      var status = 429
      let deadline = ContinuousClock.now + .seconds(20)
      while status == 429, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(250))
        status = try await send(second)
      }
      #expect(status == 200, "the refused request was not recorded, so it is no replay")
    }
  }

  /// A request that cannot verify is refused on its headers: the proxy answers without waiting
  /// for (or buffering) the body it announced.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aRequestThatCannotVerifyIsRefusedBeforeItsBody() async throws {
    try await ProxyHarness.with { proxy in
      let session = try await proxy.rawSession()
      let timestamp = String(Int(Date().timeIntervalSince1970))
      let heads = [
        // No signature at all.
        "POST /vision HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n",
        // A forged session id.
        "POST /vision HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\nx-timestamp: \(timestamp)\r\n"
          + "x-signature: \(String(repeating: "ab", count: 32))\r\n"
          + "x-dex-session: dx1.k1.\(session.sessionID.split(separator: ".")[2]).1.AAAA.AAAA\r\n\r\n",
        // A timestamp an hour old.
        "POST /auth_token HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n"
          + "x-timestamp: \(Int(Date().timeIntervalSince1970) - 3600)\r\n"
          + "x-signature: \(String(repeating: "ab", count: 32))\r\n\r\n",
      ]
      for head in heads {
        // Off the cooperative pool (a blocking read there starves the proxy of its threads on
        // a two-core host until the connection's deadline closes it); a proxy that waited for
        // the announced body would close the connection at its body deadline, never with 401.
        let status = try await RawConnection.status(answering: head, port: proxy.port)
        #expect(status == 401, "\(head.prefix(40))")
      }
      #expect(proxy.upstream.received.isEmpty)
    }
  }

  /// `/auth_token` reads a few kilobytes at most, whatever the `/vision` limit.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func anAuthTokenBodyOverFourKilobytesIsA413() async throws {
    try await ProxyHarness.with { proxy in
      let body = try JSONEncoder().encode(
        AuthTokenRequest(subject: "big", nonce: String(repeating: "n", count: 5000)))
      let response = try await proxy.send(
        "POST", "/auth_token",
        headers: ProxyHarness.signed("/auth_token", body: body, secret: ProxyHarness.bootstrapKey),
        body: body)
      #expect(response.statusCode == 413)
      #expect(errorCode(response.body) == "request_too_large")
    }
  }

  /// Sessions that name no subject do not share a daily quota: one such client spending it
  /// leaves the next one's untouched.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func sessionsWithoutASubjectHaveTheirOwnQuota() async throws {
    try await ProxyHarness.with(configure: { $0.dailyQuota = 1 }) { proxy in
      var statuses: [Int] = []
      for index in 0..<2 {
        let session = try await proxy.rawSession(subject: nil)
        statuses += try await proxy.sendVisions(2, prompt: "anonymous \(index)", under: session)
          .map(\.statusCode)
      }
      #expect(statuses == [200, 429, 200, 429])
    }
  }

  /// A call the model service refuses for what it carries (a 4xx) stays counted, so it cannot
  /// be repeated for free; a 5xx is given back (``DailyQuotaTests``).
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aCallRefusedUpstreamForItsContentIsNotRefunded() async throws {
    try await ProxyHarness.with(configure: { $0.dailyQuota = 1 }) { proxy in
      proxy.upstream.enqueue(.status(400))
      let session = try await proxy.rawSession()
      let responses = try await proxy.sendVisions(2, prompt: "c", under: session)
      #expect(responses.map(\.statusCode) == [502, 429])
      #expect(proxy.upstream.received.count == 1)
    }
    #expect(UpstreamError.timedOut.isRefundable == false)
    #expect(UpstreamError.invalidResponse.isRefundable == false)
    #expect(UpstreamError.unreachable.isRefundable)
    #expect(UpstreamError.rateLimited.isRefundable)
  }

  /// An `/auth_token` request that the sessions-per-address budget refuses is not recorded
  /// against replay: sent again it meets the budget again, not `replayed`, and it took no room
  /// in the replay cache.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aSessionTheBudgetRefusesTakesNoReplayRoom() async throws {
    try await ProxyHarness.with(configure: { $0.sessionsPerAddressPerHour = 1 }) { proxy in
      _ = try await proxy.rawSession()
      let body = try JSONEncoder().encode(AuthTokenRequest(subject: "second"))
      let headers = ProxyHarness.signed(
        "/auth_token", body: body, secret: ProxyHarness.bootstrapKey)
      for _ in 0..<2 {
        let response = try await proxy.send("POST", "/auth_token", headers: headers, body: body)
        #expect(response.statusCode == 429)
        #expect(errorCode(response.body) == "session_limit_exceeded")
      }
    }
  }
}
