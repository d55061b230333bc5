import DexCloud
import DexProxy
import Foundation
import Testing

/// A proxy started with only the README's settings has a daily ceiling: a newcomer who never
/// heard of the budgets cannot have one address's calls forwarded without end.
@Suite struct DefaultCeilingTests {
  /// The README's run section, word for word in its variables: the two secrets, the upstream,
  /// the model and its key. Nothing else is set but the port (a free one) and, below, the rate
  /// limiter (opened, so that only a budget can refuse).
  static func readmeEnvironment(upstream: URL) -> [String: String] {
    [
      "DEX_PROXY_BOOTSTRAP_KEY": bootstrapKeyText,
      "DEX_PROXY_SERVER_SECRET": ProxyHarness.serverSecretText,
      "DEX_PROXY_UPSTREAM_URL": upstream.absoluteString,
      "DEX_PROXY_MODEL": "gpt-4o-mini",
      "DEX_PROXY_API_KEY": ProxyHarness.apiKeyText,
      "DEX_PROXY_PORT": "0",
    ]
  }

  /// A bootstrap key as long as the README's `openssl rand -hex 24` makes (48 bytes).
  static let bootstrapKeyText = "readme-bootstrap-key-0123456789abcdef0123456789ab"

  /// A session for a new subject, asked for with ``bootstrapKeyText``.
  @available(macOS 14, iOS 17, tvOS 17, *)
  static func session(_ proxy: ProxyHarness) async throws -> AuthTokenResponse {
    let body = try JSONEncoder().encode(AuthTokenRequest(subject: "ceiling-\(UUID())"))
    let response = try await proxy.send(
      "POST", "/auth_token",
      headers: ProxyHarness.signed(
        "/auth_token", body: body, secret: try #require(SigningSecret(bootstrapKeyText))),
      body: body)
    try #require(response.statusCode == 200)
    return try JSONDecoder().decode(AuthTokenResponse.self, from: response.body)
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func theReadmeSettingsAloneRefuseOneAddressWellBefore20000Calls() async throws {
    try await ProxyHarness.with(configure: { configuration in
      var environment = Self.readmeEnvironment(upstream: configuration.upstream.baseURL)
      environment["DEX_PROXY_RATE_LIMIT_BURST"] = "100000"
      environment["DEX_PROXY_RATE_LIMIT_PER_SECOND"] = "100000"
      // A configuration the README's settings cannot make fails the test below (no ceiling
      // met) rather than here: `configure` cannot throw.
      if let parsed = try? ProxyConfiguration.fromEnvironment(environment) {
        configuration = parsed
      }
    }) { proxy in
      // One address minting a new subject whenever its subject's quota is spent, as an
      // attacker holding the bootstrap key would, until a budget the subject cannot dodge
      // refuses it; at most 2 500 attempts (the issue measured 20 005 forwarded without one).
      var session = try await Self.session(proxy)
      var forwarded = 0
      var refusal: String?
      for index in 0..<2500 {
        let response = try await proxy.sendVision(
          try visionBody("ceiling \(index)"), secret: session.sessionSecret,
          session: session.sessionID)
        if response.statusCode == 200 {
          forwarded += 1
          continue
        }
        let code = errorCode(response.body)
        guard code == "quota_exceeded" else {
          refusal = code
          break
        }
        session = try await Self.session(proxy)
      }
      #expect(refusal == "address_quota_exceeded" || refusal == "daily_budget_exhausted")
      #expect(forwarded == ProxyConfiguration.defaultAddressDailyQuota)
      #expect(proxy.upstream.received.count == forwarded)
      // The start-up line states every ceiling in effect.
      let listening = proxy.logs.lines.first { $0.contains("dex-proxy listening") } ?? ""
      #expect(listening.contains("daily 100 per subject, 500 per address, 2000 in all"))
      #expect(listening.contains("sessions 60 per address per hour"))
    }
  }

  /// Each daily ceiling is finite unless `off` is said.
  @Test func offMustBeSaid() throws {
    let readme = Self.readmeEnvironment(upstream: URL(string: "https://api.example.com/v1")!)
    let defaults = try ProxyConfiguration.fromEnvironment(readme)
    #expect(defaults.dailyQuota == ProxyConfiguration.defaultDailyQuota)
    #expect(defaults.addressDailyQuota == ProxyConfiguration.defaultAddressDailyQuota)
    #expect(defaults.dailyBudget == ProxyConfiguration.defaultDailyBudget)
    #expect(defaults.sessionsPerAddressPerHour == 60)
    var off = readme
    for name in [
      "DEX_PROXY_DAILY_QUOTA", "DEX_PROXY_ADDRESS_DAILY_QUOTA", "DEX_PROXY_DAILY_BUDGET",
    ] {
      off[name] = "off"
    }
    let unlimited = try ProxyConfiguration.fromEnvironment(off)
    #expect(unlimited.dailyQuota == nil && unlimited.addressDailyQuota == nil)
    #expect(unlimited.dailyBudget == nil)
    // An empty value is not `off`.
    var empty = readme
    empty["DEX_PROXY_DAILY_BUDGET"] = ""
    #expect(throws: ProxyConfigurationError.self) { try ProxyConfiguration.fromEnvironment(empty) }
  }
}
