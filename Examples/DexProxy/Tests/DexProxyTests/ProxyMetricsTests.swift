import DexCloud
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// `GET /metrics`: off unless configured, and once on, counts that move with real signed
/// requests over loopback HTTP, histograms with their buckets, and no secret in any label.
@Suite struct ProxyMetricsTests {
  /// A proxy with metrics on whose PostgreSQL store cannot be reached: nothing listens on
  /// port 9, so every store operation fails within `timeout`.
  @available(macOS 14, iOS 17, tvOS 17, *)
  private func withUnreachableStore(
    timeout: Duration, _ body: (ProxyHarness) async throws -> Void
  ) async throws {
    var store = try PostgresStoreConfiguration(url: "postgres://dexkit:pw@127.0.0.1:9/dexkit")
    store.operationTimeout = timeout
    try await ProxyHarness.with(
      configure: { [store] in
        $0.servesMetrics = true
        $0.postgres = store
      }, body)
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func metricsAreNotServedUnlessConfigured() async throws {
    try await ProxyHarness.with { proxy in
      let response = try await proxy.send("GET", "/metrics")
      #expect(response.statusCode == 404)
    }
  }

  /// Metrics answer at exactly `GET /metrics`, not at the other spellings the router matches,
  /// so that a rule keeping `/metrics` private at a load balancer covers every way to them.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func metricsAnswerOnlyAtTheirExactPath() async throws {
    try await ProxyHarness.with(configure: { $0.servesMetrics = true }) { proxy in
      let exact = try await proxy.send("GET", "/metrics")
      #expect(exact.statusCode == 200)
      for path in ["//metrics", "/metrics/"] {
        let other = try await proxy.send("GET", path)
        #expect(other.statusCode == 404, "\(path)")
      }
      let head = try await proxy.send("HEAD", "/metrics")
      #expect(head.statusCode == 404)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func signedRequestsAndAReplayAreCounted() async throws {
    try await ProxyHarness.with(configure: { $0.servesMetrics = true }) { proxy in
      let before = try await proxy.scrape()
      #expect(before.requests(route: "/vision") == nil)

      let session = try await proxy.expectAReplayIsRefused()
      let second = try await proxy.sendVision(
        try visionBody("Again?"), secret: session.sessionSecret, session: session.sessionID)
      #expect(second.statusCode == 200)

      let scrape = try await proxy.scrape()
      #expect(scrape.requests(route: "/auth_token", status: "2xx", outcome: "issued") == 1)
      #expect(scrape.requests(route: "/vision", status: "2xx", outcome: "ok") == 2)
      #expect(scrape.requests(route: "/vision", status: "4xx", outcome: "replayed_request") == 1)
      let upstream = ProxyMetrics.Name.upstreamDuration
      #expect(scrape.value("\(upstream)_count", ["outcome": "ok"]) == 2)
      #expect(scrape.value("\(upstream)_bucket", ["outcome": "ok", "le": "+Inf"]) == 2)
      #expect(scrape.lines(startingWith: "\(upstream)_bucket").count >= 5)
      #expect(scrape.value("\(ProxyMetrics.Name.requestDuration)_count", ["route": "/vision"]) == 3)
      #expect(proxy.upstream.received.count == 2)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func noSecretSessionSubjectOrAddressAppears() async throws {
    try await ProxyHarness.with(configure: { $0.servesMetrics = true }) { proxy in
      let session = try await proxy.rawSession()
      let response = try await proxy.sendVision(
        try visionBody(), secret: session.sessionSecret, session: session.sessionID)
      #expect(response.statusCode == 200)
      let forged = try await proxy.sendVision(
        try visionBody(), secret: session.sessionSecret, session: "dx1.k1.forged-session-id")
      #expect(forged.statusCode == 401)

      let text = try await proxy.scrape().text
      #expect(text.contains(ProxyMetrics.Name.requests))
      let forbidden = [
        session.sessionID, "forged-session-id", "raw-test", ProxyHarness.bootstrapKeyText,
        ProxyHarness.serverSecretText, ProxyHarness.apiKeyText, "127.0.0.1", "session:", "ip:",
      ]
      for secret in forbidden {
        #expect(!text.contains(secret), "\(secret.prefix(6))… is in /metrics")
      }
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func rateLimitAndQuotaRefusalsAreCounted() async throws {
    try await ProxyHarness.with(configure: {
      $0.servesMetrics = true
      $0.dailyQuota = 1
    }) { proxy in
      let session = try await proxy.rawSession()
      let responses = try await proxy.sendVisions(2, prompt: "quota", under: session)
      #expect(responses.map(\.statusCode) == [200, 429])
      let scrape = try await proxy.scrape()
      #expect(scrape.value(ProxyMetrics.Name.quotaRefusals, [:]) == 1)
      #expect(scrape.requests(route: "/vision", status: "4xx", outcome: "quota_exceeded") == 1)
      #expect(scrape.value(ProxyMetrics.Name.rateLimitRefusals, [:]) == nil)
    }

    try await ProxyHarness.with(configure: {
      $0.servesMetrics = true
      $0.rateLimit = RateLimit(burst: 1, refillPerSecond: 0.001)
    }) { proxy in
      _ = try await proxy.rawSession()
      await #expect(throws: ProxyHarness.UnexpectedStatus.self) { try await proxy.rawSession() }
      let scrape = try await proxy.scrape()
      #expect(scrape.value(ProxyMetrics.Name.rateLimitRefusals, ["route": "/auth_token"]) == 1)
      #expect(scrape.requests(route: "/auth_token", status: "4xx", outcome: "rate_limited") == 1)
    }
  }

  /// A PostgreSQL store that cannot be reached (nothing listens on the port): the signed
  /// request is refused with 503 and the store's failures are counted, by operation.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func unreachableStoreErrorsAreCounted() async throws {
    try await withUnreachableStore(timeout: .milliseconds(500)) { proxy in
      let body = try JSONEncoder().encode(AuthTokenRequest(subject: "metrics-test"))
      let response = try await proxy.send(
        "POST", "/auth_token",
        headers: ProxyHarness.signed("/auth_token", body: body, secret: ProxyHarness.bootstrapKey),
        body: body)
      #expect(response.statusCode == 503)
      #expect(errorCode(response.body) == "replay_store_unavailable")
      let scrape = try await proxy.scrape()
      #expect((scrape.value(ProxyMetrics.Name.storeErrors, ["operation": "insert"]) ?? 0) >= 1)
      #expect(
        (scrape.value(
          "\(ProxyMetrics.Name.storeDuration)_count", ["operation": "insert"]) ?? 0) >= 1)
      #expect(
        scrape.requests(
          route: "/auth_token", status: "5xx", outcome: "replay_store_unavailable") == 1)
    }
  }

  /// DexCloud's real client against a proxy whose store is unreachable: the 503
  /// `replay_store_unavailable` is transient, retried after its `Retry-After`, and ends as a
  /// typed `DexCloudError` carrying the code; the proxy's metrics show both attempts.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func theClientRetriesAnUnavailableStoreAndFailsTyped() async throws {
    try await withUnreachableStore(timeout: .milliseconds(300)) { proxy in
      let error = await #expect(throws: DexCloudError.self) {
        _ = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      }
      #expect(error?.kind == .http)
      #expect(error?.statusCode == 503)
      #expect(error?.apiError?.code == "replay_store_unavailable")
      #expect(error?.isTransient == true)
      let scrape = try await proxy.scrape()
      // maximumAttempts 2: the first attempt and one retry, both on /auth_token.
      #expect(scrape.requests(route: "/auth_token", outcome: "replay_store_unavailable") == 2)
      #expect(proxy.upstream.received.isEmpty)
    }
  }
}
