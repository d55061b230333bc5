import DexCloud
import DexCloudServer
import DexExamplesTestSupport
import DexProxy
import DexProxyTesting
import Foundation
import Hummingbird
import Logging

/// A running `dex-proxy` on 127.0.0.1 (port 0) in front of a ``StubUpstream``, plus helpers to
/// drive it with DexCloud's real client or with raw, hand-signed requests.
@available(macOS 14, iOS 17, tvOS 17, *)
struct ProxyHarness: Sendable {
  static let bootstrapKeyText = "proxy-test-bootstrap-key-4c1e9d"
  static let serverSecretText = "proxy-test-server-secret-7a2f9e1b3c5d8e0f"
  static let apiKeyText = "sk-test-upstream-key-93b1f0"
  static let bootstrapKey = SigningSecret(bootstrapKeyText)!

  let port: Int
  let upstream: StubUpstream
  let logs: LogCapture
  /// Sent as `X-Forwarded-For` on every raw request that names none, so that a cluster behind
  /// 127.0.0.1 as a trusted balancer has an address of its own in a shared store's per-address
  /// buckets and budgets (which outlive a test).
  var forwardedFor: String? = nil

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  static func configuration(upstreamPort: Int) -> ProxyConfiguration {
    ProxyConfiguration(
      bootstrapKeys: [bootstrapKey],
      keyring: ServerKeyring(
        current: ServerKey(id: "k1", secret: SigningSecret(serverSecretText)!)!),
      upstream: UpstreamConfiguration(
        baseURL: URL(string: "http://127.0.0.1:\(upstreamPort)/v1/")!, model: "gpt-test",
        // Far: tests of the deadline set their own (a loaded machine must not cut a reply).
        apiKey: APIKey(apiKeyText), timeout: .seconds(30)),
      host: "127.0.0.1", port: 0, maximumBodyBytes: 256 << 10,
      rateLimit: RateLimit(burst: 100, refillPerSecond: 50),
      // Off unless a test sets them: a shared store's counts outlive a test.
      dailyQuota: nil, addressDailyQuota: nil, dailyBudget: nil, sessionsPerAddressPerHour: nil)
  }

  /// Starts the stub and the proxy, runs `body`, and always stops both.
  static func with<T: Sendable>(
    configure: @Sendable (inout ProxyConfiguration) -> Void = { _ in },
    _ body: (ProxyHarness) async throws -> T
  ) async throws -> T {
    try await cluster(count: 1, configure: configure) { proxies in try await body(proxies[0]) }
  }

  /// Starts one stub upstream and `count` proxies in front of it (each with its own logs, all
  /// with the same configuration, so a shared store is shared), runs `body`, and always stops
  /// them all.
  static func cluster<T: Sendable>(
    count: Int, configure: @Sendable (inout ProxyConfiguration) -> Void = { _ in },
    forwardedFor: String? = nil, _ body: ([ProxyHarness]) async throws -> T
  ) async throws -> T {
    let upstream = StubUpstream()
    try await upstream.start()
    var configuration = configuration(upstreamPort: upstream.port)
    configure(&configuration)
    let logs = (0..<count).map { _ in LogCapture() }
    do {
      let result = try await LoopbackServer.withProxies(
        configuration, loggers: logs.map { $0.logger("dexkit.proxy") }
      ) { ports in
        try await body(
          zip(ports, logs).map {
            ProxyHarness(port: $0, upstream: upstream, logs: $1, forwardedFor: forwardedFor)
          })
      }
      await upstream.stop()
      return result
    } catch {
      await upstream.stop()
      throw error
    }
  }

  /// DexCloud's real client against this proxy, with quick retries.
  func client(maximumAttempts: Int = 2) -> ApiClient {
    ApiClient(
      configuration: DexCloudConfiguration(
        baseURL: baseURL, bootstrapKey: Self.bootstrapKey, subject: "proxy-test-install",
        requestTimeout: .seconds(45),
        retryPolicy: RetryPolicy(
          maximumAttempts: maximumAttempts, initialBackoff: .milliseconds(5),
          maximumBackoff: .milliseconds(20), maximumRetryAfter: .seconds(2),
          maximumElapsed: .seconds(90)),
        maximumRequestBodyBytes: 1 << 20),
      logger: logs.logger("client"))
  }

  func vision() -> DexVisionService {
    DexVisionService(client: client(), logger: logs.logger("vision"))
  }

  // MARK: Raw requests

  /// Sends one request as is and returns the response (never throws on a status).
  func send(
    _ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data(),
    timeout: Duration = .seconds(10)
  ) async throws -> TransportResponse {
    var all = headers
    if !body.isEmpty { all["content-type"] = "application/json" }
    if let forwardedFor, all["X-Forwarded-For"] == nil { all["X-Forwarded-For"] = forwardedFor }
    return try await URLSessionTransport().send(
      TransportRequest(
        method: method, url: URL(string: "http://127.0.0.1:\(port)\(path)")!, headers: all,
        body: body),
      timeout: timeout)
  }

  /// The signing headers for `body` on `path`, signed with `secret` now.
  static func signed(
    _ path: String, body: Data, secret: SigningSecret, session: String? = nil
  ) -> [String: String] {
    SignedHeaders.post(path, body: body, secret: secret, session: session)
  }

  /// One `/vision` request signed now with `secret` under session id `session`, sent twice
  /// unchanged: the responses to the original and to its replay.
  func sendVisionAndReplay(
    _ body: Data, secret: SigningSecret, session: String
  ) async throws -> (first: TransportResponse, replay: TransportResponse) {
    let headers = Self.signed("/vision", body: body, secret: secret, session: session)
    let first = try await send("POST", "/vision", headers: headers, body: body)
    let replay = try await send("POST", "/vision", headers: headers, body: body)
    return (first, replay)
  }

  /// `body` sent to `/vision`, signed now with `secret` under session id `session`.
  func sendVision(
    _ body: Data, secret: SigningSecret, session: String
  ) async throws
    -> TransportResponse
  {
    try await send(
      "POST", "/vision",
      headers: Self.signed("/vision", body: body, secret: secret, session: session), body: body)
  }

  /// `count` `/vision` requests with distinct prompts (`"<prompt> 0"`, `"<prompt> 1"`…, so that
  /// none is a replay of another), sent one after another under `session`: the responses, in
  /// order.
  func sendVisions(
    _ count: Int, prompt: String, under session: AuthTokenResponse
  ) async throws -> [TransportResponse] {
    var responses: [TransportResponse] = []
    for index in 0..<count {
      responses.append(
        try await sendVision(
          try visionBody("\(prompt) \(index)"), secret: session.sessionSecret,
          session: session.sessionID))
    }
    return responses
  }

  /// A session obtained with a raw, bootstrap-signed `/auth_token` request for `subject`
  /// (`nil`: none, so the proxy picks one), sent as from `address` when one is given (behind a
  /// trusted balancer).
  func rawSession(
    subject: String? = "raw-test", forwardedFor address: String? = nil
  ) async throws -> AuthTokenResponse {
    let body = try JSONEncoder().encode(AuthTokenRequest(subject: subject))
    var headers = Self.signed("/auth_token", body: body, secret: Self.bootstrapKey)
    if let address { headers["X-Forwarded-For"] = address }
    let response = try await send("POST", "/auth_token", headers: headers, body: body)
    guard response.statusCode == 200 else { throw UnexpectedStatus(status: response.statusCode) }
    return try JSONDecoder().decode(AuthTokenResponse.self, from: response.body)
  }

  struct UnexpectedStatus: Error { var status: Int }
}

/// The four required variables, valid, for configuration tests.
let minimalEnvironment = [
  "DEX_PROXY_BOOTSTRAP_KEY": "boot-key-value-0123456789abcdef-123",
  "DEX_PROXY_SERVER_SECRET": "server-secret-value-at-least-32-bytes-long",
  "DEX_PROXY_UPSTREAM_URL": "https://api.example.com/v1",
  "DEX_PROXY_MODEL": "gpt-4o-mini",
]

/// The `error.code` of an OpenAI-style error body.
func errorCode(_ body: Data) -> String? {
  let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
  return (object?["error"] as? [String: Any])?["code"] as? String
}

/// A few bytes that start like a JPEG; the stub never decodes them.
let sampleImage = Data(
  [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]
    + Array(repeating: 0x5A, count: 2048) + [0xFF, 0xD9])

/// An AI Vision `/vision` body: ``sampleImage`` and `question` (distinct questions make distinct
/// requests, so that none is a replay of another signed in the same second).
func visionBody(_ question: String = "What is it?") throws -> Data {
  try JSONEncoder().encode(
    VisionRequest.ask(image: sampleImage.base64EncodedString(), question: question))
}
