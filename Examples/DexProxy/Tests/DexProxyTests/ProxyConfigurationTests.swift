import DexProxy
import Foundation
import Testing

/// Reading the proxy configuration from the environment.
@Suite struct ProxyConfigurationTests {
  private let valid = [
    "DEX_PROXY_BOOTSTRAP_KEY": "boot-key-value-0123456789abcdef-123",
    "DEX_PROXY_SERVER_SECRET": "server-secret-value-at-least-32-bytes-long",
    "DEX_PROXY_UPSTREAM_URL": "https://api.example.com/v1",
    "DEX_PROXY_MODEL": "gpt-4o-mini",
    "DEX_PROXY_API_KEY": "sk-live-value-456",
  ]

  @Test func readsAValidEnvironmentWithDefaults() throws {
    let configuration = try ProxyConfiguration.fromEnvironment(valid)
    #expect(configuration.upstream.model == "gpt-4o-mini")
    #expect(configuration.upstream.baseURL.absoluteString == "https://api.example.com/v1")
    #expect(configuration.upstream.apiKey == APIKey("sk-live-value-456"))
    #expect(configuration.host == "127.0.0.1")
    #expect(configuration.port == 8080)
    #expect(configuration.maximumBodyBytes == 8 << 20)
    #expect(configuration.rateLimit == .default)
    #expect(configuration.keyring.current.id == "k1")
    #expect(configuration.bootstrapKeys.count == 1)
    #expect(!configuration.servesMetrics)
  }

  @Test func metricsAreOnOrOff() throws {
    var environment = valid
    environment["DEX_PROXY_METRICS"] = "on"
    #expect(try ProxyConfiguration.fromEnvironment(environment).servesMetrics)
    environment["DEX_PROXY_METRICS"] = "off"
    #expect(try !ProxyConfiguration.fromEnvironment(environment).servesMetrics)
    environment["DEX_PROXY_METRICS"] = "sometimes"
    #expect(throws: ProxyConfigurationError.self) {
      try ProxyConfiguration.fromEnvironment(environment)
    }
  }

  @Test func readsOverrides() throws {
    var environment = valid
    environment["DEX_PROXY_PORT"] = "9000"
    environment["DEX_PROXY_HOST"] = "0.0.0.0"
    environment["DEX_PROXY_MAX_BODY_BYTES"] = "1048576"
    environment["DEX_PROXY_RATE_LIMIT_BURST"] = "5"
    environment["DEX_PROXY_RATE_LIMIT_PER_SECOND"] = "2.5"
    environment["DEX_PROXY_UPSTREAM_TIMEOUT"] = "1.5"
    environment["DEX_PROXY_PREVIOUS_BOOTSTRAP_KEY"] = "old-boot-key-0123456789abcdef-0123"
    let configuration = try ProxyConfiguration.fromEnvironment(environment)
    #expect(configuration.port == 9000)
    #expect(configuration.host == "0.0.0.0")
    #expect(configuration.maximumBodyBytes == 1 << 20)
    #expect(configuration.rateLimit == RateLimit(burst: 5, refillPerSecond: 2.5))
    #expect(configuration.upstream.timeout == .milliseconds(1500))
    #expect(configuration.bootstrapKeys.count == 2)
  }

  @Test(
    arguments: [
      ("DEX_PROXY_BOOTSTRAP_KEY", nil), ("DEX_PROXY_SERVER_SECRET", "too-short"),
      ("DEX_PROXY_UPSTREAM_URL", "ftp://x"), ("DEX_PROXY_MODEL", " "),
      ("DEX_PROXY_PORT", "70000"), ("DEX_PROXY_MAX_BODY_BYTES", "lots"),
      ("DEX_PROXY_SERVER_KEY_ID", "bad id!"),
    ] as [(String, String?)])
  func badVariableIsNamedWithoutItsValue(name: String, value: String?) {
    var environment = valid
    environment[name] = value
    do {
      _ = try ProxyConfiguration.fromEnvironment(environment)
      Issue.record("\(name) should have been refused")
    } catch {
      #expect(error.variable == name)
      for secret in valid.values where secret.count > 10 {
        #expect(!error.description.contains(secret))
      }
    }
  }

  @Test func apiKeyIsRedacted() throws {
    let key = try #require(APIKey("sk-very-secret"))
    #expect("\(key)" == "<redacted>")
    #expect(String(reflecting: key) == "<redacted>")
    var dumped = ""
    dump(try ProxyConfiguration.fromEnvironment(valid), to: &dumped)
    #expect(!dumped.contains("sk-live-value-456"))
    #expect(!dumped.contains("server-secret-value"))
    #expect(!dumped.contains("boot-key-value"))
    #expect(APIKey("   ") == nil)
  }
}
