import DexCloud
import DexCloudServer
import Foundation

extension ProxyConfiguration {
  /// The environment variables ``fromEnvironment(_:)`` reads.
  public enum Variable {
    /// Required. The bootstrap key clients sign `/auth_token` with (at least 32 bytes, different
    /// from the server secret).
    public static let bootstrapKey = "DEX_PROXY_BOOTSTRAP_KEY"
    /// Optional. A previous bootstrap key still accepted during rotation (at least 32 bytes,
    /// different from the other two).
    public static let previousBootstrapKey = "DEX_PROXY_PREVIOUS_BOOTSTRAP_KEY"
    /// Required. The server secret that authenticates session ids (at least 32 bytes).
    public static let serverSecret = "DEX_PROXY_SERVER_SECRET"
    /// Optional. The id of the server key, embedded in session ids (default `k1`).
    public static let serverKeyID = "DEX_PROXY_SERVER_KEY_ID"
    /// Optional. Session lifetime in seconds (default 3600).
    public static let sessionLifetime = "DEX_PROXY_SESSION_LIFETIME"
    /// Required. The OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`.
    public static let upstreamURL = "DEX_PROXY_UPSTREAM_URL"
    /// Required. The model name, e.g. `gpt-4o-mini`.
    public static let model = "DEX_PROXY_MODEL"
    /// Optional. The provider's API key (omit for local servers such as Ollama).
    public static let apiKey = "DEX_PROXY_API_KEY"
    /// Optional. Upstream timeout in seconds (default 60).
    public static let upstreamTimeout = "DEX_PROXY_UPSTREAM_TIMEOUT"
    /// Optional. Bind address (default `127.0.0.1`).
    public static let host = "DEX_PROXY_HOST"
    /// Optional. Port (default 8080).
    public static let port = "DEX_PROXY_PORT"
    /// Optional. Request body limit in bytes (default 8388608).
    public static let maximumBodyBytes = "DEX_PROXY_MAX_BODY_BYTES"
    /// Optional. Rate-limit burst per client (default 20).
    public static let rateLimitBurst = "DEX_PROXY_RATE_LIMIT_BURST"
    /// Optional. Rate-limit refill, requests per second per client (default 0.5).
    public static let rateLimitPerSecond = "DEX_PROXY_RATE_LIMIT_PER_SECOND"
    /// Optional. `postgres://user:password@host:port/database`: the replay cache shared by every
    /// instance lives in that PostgreSQL database (unset: in this process's memory).
    public static let postgresURL = "DEX_PROXY_POSTGRES_URL"
    /// Optional. Comma-separated addresses or CIDR blocks of the load balancers whose
    /// `X-Forwarded-For` header names the client (default: none, the header is ignored).
    public static let trustedProxies = "DEX_PROXY_TRUSTED_PROXIES"
    /// Optional. The most `/vision` calls one subject (install) may make per UTC day (default
    /// ``ProxyConfiguration/defaultDailyQuota``; `off` for none); over it, 429
    /// `quota_exceeded`.
    public static let dailyQuota = "DEX_PROXY_DAILY_QUOTA"
    /// Optional. The most `/vision` calls from one client address (an IPv6 /64) per UTC day
    /// (default ``ProxyConfiguration/defaultAddressDailyQuota``; `off` for none); over it, 429
    /// `address_quota_exceeded`.
    public static let addressDailyQuota = "DEX_PROXY_ADDRESS_DAILY_QUOTA"
    /// Optional. The most `/vision` calls from all clients together per UTC day (default
    /// ``ProxyConfiguration/defaultDailyBudget``; `off` for none); over it, 429
    /// `daily_budget_exhausted`.
    public static let dailyBudget = "DEX_PROXY_DAILY_BUDGET"
    /// Optional. The most sessions issued to one client address per UTC hour (default
    /// ``ProxyConfiguration/defaultSessionsPerAddressPerHour``; `off` for none); over it, 429
    /// `session_limit_exceeded`.
    public static let addressHourlySessions = "DEX_PROXY_ADDRESS_HOURLY_SESSIONS"
    /// Optional. The longest AI Vision question accepted, in characters (default 500); longer,
    /// 400 `prompt_too_long`.
    public static let promptMaxCharacters = "DEX_PROXY_PROMPT_MAX_CHARS"
    /// Optional. Seconds a client has for a request's headers, then for its body, and that an
    /// idle connection is kept (default 30).
    public static let readTimeout = "DEX_PROXY_READ_TIMEOUT"
    /// Optional. The most `/auth_token` and `/vision` requests one instance works on at once
    /// (default 512); past it, 503 `busy`.
    public static let maximumInFlight = "DEX_PROXY_MAX_IN_FLIGHT"
    /// Optional. The most of those one client address (IPv6: its /64) has worked on at once
    /// (default 8); past it, 503 `busy`.
    public static let maximumInFlightPerAddress = "DEX_PROXY_MAX_IN_FLIGHT_PER_ADDRESS"
    /// Optional. The most `/vision` requests of one session one instance works on at once
    /// (default 4); past it, 503 `busy`.
    public static let maximumInFlightPerSession = "DEX_PROXY_MAX_IN_FLIGHT_PER_SESSION"
    /// Optional. The most body bytes the `/vision` requests in flight may declare together
    /// (default ``ProxyConfiguration/defaultBodyBytesInFlight``; at least
    /// `DEX_PROXY_MAX_BODY_BYTES`); past it, 503 `busy`.
    public static let maximumBodyBytesInFlight = "DEX_PROXY_MAX_BODY_BYTES_IN_FLIGHT"
    /// Optional. `on` serves `GET /metrics` (Prometheus text format, unauthenticated); `off`
    /// (the default) answers it with 404.
    public static let metrics = "DEX_PROXY_METRICS"
  }

  /// The shortest bootstrap key or server secret accepted, in bytes.
  public static let minimumSecretBytes = 32

  /// Reads the configuration from environment variables (see ``Variable``).
  ///
  /// - Throws: ``ProxyConfigurationError`` naming the first missing or malformed variable: among
  ///   them a bootstrap key, previous bootstrap key or server secret shorter than
  ///   ``minimumSecretBytes`` or equal to another of the three (never with its value).
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(ProxyConfigurationError) -> ProxyConfiguration {
    func required(_ name: String) throws(ProxyConfigurationError) -> String {
      guard let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty
      else { throw ProxyConfigurationError(variable: name, problem: "is missing or empty.") }
      return value
    }
    func number<T: LosslessStringConvertible & Comparable>(
      _ name: String, default fallback: T, minimum: T, maximum: T
    ) throws(ProxyConfigurationError) -> T {
      guard let text = environment[name] else { return fallback }
      guard let value = T(text.trimmingCharacters(in: .whitespaces)), value >= minimum,
        value <= maximum
      else {
        throw ProxyConfigurationError(
          variable: name, problem: "must be a number from \(minimum) to \(maximum).")
      }
      return value
    }

    // Secrets: each at least 32 bytes, and all different (a bootstrap key equal to the server
    // secret would let anyone holding the app's key forge sessions).
    var secretTexts: [(variable: String, text: String)] = [
      (Variable.bootstrapKey, try required(Variable.bootstrapKey))
    ]
    if let previous = environment[Variable.previousBootstrapKey],
      !previous.trimmingCharacters(in: .whitespaces).isEmpty
    {
      secretTexts.append((Variable.previousBootstrapKey, previous))
    }
    secretTexts.append((Variable.serverSecret, try required(Variable.serverSecret)))
    for (index, secret) in secretTexts.enumerated() {
      guard secret.text.utf8.count >= minimumSecretBytes else {
        throw ProxyConfigurationError(
          variable: secret.variable, problem: "must be at least \(minimumSecretBytes) bytes.")
      }
      if let earlier = secretTexts[..<index].first(where: { $0.text == secret.text }) {
        throw ProxyConfigurationError(
          variable: secret.variable, problem: "must differ from \(earlier.variable).")
      }
    }
    guard let bootstrap = SigningSecret(secretTexts[0].text),
      let serverSecret = SigningSecret(secretTexts[secretTexts.count - 1].text)
    else {
      throw ProxyConfigurationError(variable: Variable.bootstrapKey, problem: "is empty.")
    }
    var bootstrapKeys = [bootstrap]
    if secretTexts.count == 3, let previous = SigningSecret(secretTexts[1].text) {
      bootstrapKeys.append(previous)
    }
    let keyID = environment[Variable.serverKeyID] ?? "k1"
    guard let key = ServerKey(id: keyID, secret: serverSecret) else {
      throw ProxyConfigurationError(
        variable: Variable.serverKeyID, problem: "must be 1–32 characters of [A-Za-z0-9_-].")
    }
    let urlText = try required(Variable.upstreamURL)
    guard let url = URL(string: urlText), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", url.host != nil
    else {
      throw ProxyConfigurationError(
        variable: Variable.upstreamURL, problem: "is not an http(s) URL.")
    }
    let model = try required(Variable.model)
    let lifetime =
      try number(
        Variable.sessionLifetime, default: 3600, minimum: 60, maximum: 86_400 * 30) as Int
    let timeout =
      try number(
        Variable.upstreamTimeout, default: 60.0, minimum: 0.1, maximum: 600.0) as Double
    let port = try number(Variable.port, default: 8080, minimum: 0, maximum: 65_535) as Int
    let body =
      try number(
        Variable.maximumBodyBytes, default: 8 << 20, minimum: 1024, maximum: 64 << 20) as Int
    let burst =
      try number(
        Variable.rateLimitBurst, default: 20, minimum: 1, maximum: 100_000) as Int
    let perSecond =
      try number(
        Variable.rateLimitPerSecond, default: 0.5, minimum: 0.001, maximum: 100_000.0) as Double

    var postgres: PostgresStoreConfiguration?
    if let text = environment[Variable.postgresURL],
      !text.trimmingCharacters(in: .whitespaces).isEmpty
    {
      postgres = try PostgresStoreConfiguration(url: text)
    }

    func optionalCount(
      _ name: String, default fallback: Int?
    ) throws(ProxyConfigurationError)
      -> Int?
    {
      guard let text = environment[name] else { return fallback }
      if text.trimmingCharacters(in: .whitespaces).lowercased() == "off" { return nil }
      return try number(name, default: 0, minimum: 1, maximum: 1_000_000_000) as Int
    }
    // Finite unless `off` is said: see ProxyConfiguration's defaults for their sizes.
    let quota = try optionalCount(Variable.dailyQuota, default: defaultDailyQuota)
    let addressQuota = try optionalCount(
      Variable.addressDailyQuota, default: defaultAddressDailyQuota)
    let budget = try optionalCount(Variable.dailyBudget, default: defaultDailyBudget)
    let sessions = try optionalCount(
      Variable.addressHourlySessions, default: defaultSessionsPerAddressPerHour)
    let promptCharacters =
      try number(Variable.promptMaxCharacters, default: 500, minimum: 1, maximum: 100_000) as Int
    let readTimeout =
      try number(Variable.readTimeout, default: 30.0, minimum: 0.1, maximum: 3600.0) as Double
    let inFlight =
      try number(Variable.maximumInFlight, default: 512, minimum: 1, maximum: 1_000_000) as Int
    let inFlightPerAddress =
      try number(
        Variable.maximumInFlightPerAddress, default: 8, minimum: 1, maximum: 1_000_000) as Int
    let inFlightPerSession =
      try number(
        Variable.maximumInFlightPerSession, default: 4, minimum: 1, maximum: 1_000_000) as Int
    let bodyBytesInFlight =
      try number(
        Variable.maximumBodyBytesInFlight, default: defaultBodyBytesInFlight, minimum: body,
        maximum: 1 << 40) as Int
    var trusted = TrustedProxies.none
    if let text = environment[Variable.trustedProxies],
      !text.trimmingCharacters(in: .whitespaces).isEmpty
    {
      guard let parsed = TrustedProxies(text) else {
        throw ProxyConfigurationError(
          variable: Variable.trustedProxies,
          problem: "must be comma-separated IP addresses or CIDR blocks (10.0.0.0/8, fd00::/8).")
      }
      trusted = parsed
    }

    var servesMetrics = false
    if let text = environment[Variable.metrics] {
      switch text.trimmingCharacters(in: .whitespaces).lowercased() {
      case "on", "true", "1", "yes": servesMetrics = true
      case "off", "false", "0", "no", "": servesMetrics = false
      default:
        throw ProxyConfigurationError(variable: Variable.metrics, problem: "must be on or off.")
      }
    }

    return ProxyConfiguration(
      bootstrapKeys: bootstrapKeys,
      keyring: ServerKeyring(current: key),
      sessionLifetime: .seconds(lifetime),
      upstream: UpstreamConfiguration(
        baseURL: url, model: model, apiKey: environment[Variable.apiKey].flatMap(APIKey.init),
        timeout: .milliseconds(Int((timeout * 1000).rounded()))),
      host: environment[Variable.host] ?? "127.0.0.1",
      port: port, maximumBodyBytes: body,
      rateLimit: RateLimit(burst: burst, refillPerSecond: perSecond), postgres: postgres,
      trustedProxies: trusted, dailyQuota: quota, addressDailyQuota: addressQuota,
      dailyBudget: budget, sessionsPerAddressPerHour: sessions,
      prompts: ProxyPrompts(maximumQuestionCharacters: promptCharacters),
      readTimeout: .milliseconds(Int((readTimeout * 1000).rounded())),
      maximumInFlight: inFlight, maximumInFlightPerAddress: inFlightPerAddress,
      maximumInFlightPerSession: inFlightPerSession, maximumBodyBytesInFlight: bodyBytesInFlight,
      servesMetrics: servesMetrics)
  }
}
