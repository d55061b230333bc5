import DexCloud
import DexProxy
import Foundation
import Testing

/// Every request the proxy answers, routed or not, is logged and counted exactly once by the
/// shared request log, and no key, session id, signature or path a client sends reaches the log
/// or a metric label.
@Suite struct ProxyRequestLogTests {
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func everyRequestIsLoggedAndCountedOnce() async throws {
    try await ProxyHarness.with(configure: { $0.servesMetrics = true }) { proxy in
      let secret = "path-secret-3f9b1c"
      let session = try await proxy.rawSession()  // 200 issued
      // A routed request with a secret in its query.
      let health = try await proxy.send("GET", "/health?key=\(secret)")
      #expect(health.statusCode == 200)
      let body = try visionBody()
      var signed = ProxyHarness.signed(
        "/vision", body: body, secret: session.sessionSecret, session: "dx1.k1.forged-\(secret)")
      let forged = try await proxy.send("POST", "/vision", headers: signed, body: body)
      #expect(forged.statusCode == 401)
      // No route: a 404, with every secret the client holds in its headers, path and query.
      signed = ProxyHarness.signed(
        "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)
      signed["Authorization"] = "Bearer \(ProxyHarness.bootstrapKeyText)"
      let unrouted = try await proxy.send(
        "GET", "/\(secret)/\(session.sessionID)?key=\(ProxyHarness.bootstrapKeyText)",
        headers: signed)
      #expect(unrouted.statusCode == 404)
      let wrongMethod = try await proxy.send("GET", "/vision", headers: signed)
      #expect(wrongMethod.statusCode == 404)

      let scrape = try await proxy.scrape()
      let forgedCode = try #require(errorCode(forged.body))
      #expect(scrape.requests(route: "/auth_token", status: "2xx", outcome: "issued") == 1)
      #expect(scrape.requests(route: "/health", status: "2xx", outcome: "ok") == 1)
      #expect(scrape.requests(route: "/vision", status: "4xx", outcome: forgedCode) == 1)
      #expect(scrape.requests(route: "NotFound", status: "4xx", outcome: "not_found") == 2)
      #expect(scrape.value(ProxyMetrics.Name.requests, [:]) == 5)
      #expect(scrape.value("\(ProxyMetrics.Name.requestDuration)_count", [:]) == 5)

      // Five requests and the scrape, each logged once.
      let logs = proxy.logs
      #expect(logs.handledRequests.count == 6)
      #expect(logs.handledRequests(route: "NotFound", status: 404, outcome: "not_found") == 2)
      #expect(logs.handledRequests(route: "/metrics", status: 200, outcome: "ok") == 1)
      #expect(logs.handledRequests(route: "/vision", status: 401, outcome: forgedCode) == 1)
      #expect(logs.handledRequests(route: "/auth_token", status: 200, outcome: "issued") == 1)
      #expect(logs.handledRequests(route: "/health", status: 200, outcome: "ok") == 1)
      let secrets = [
        secret, session.sessionID, String(session.sessionID.prefix(20)),
        ProxyHarness.bootstrapKeyText, ProxyHarness.serverSecretText, ProxyHarness.apiKeyText,
        try #require(signed[DexCloudHeader.signature]),
      ]
      let logged = proxy.logs.lines.joined(separator: "\n")
      for value in secrets {
        #expect(!logged.contains(value), "\(value.prefix(6))… is in the log")
        #expect(!scrape.text.contains(value), "\(value.prefix(6))… is in /metrics")
      }
    }
  }
}
