import Foundation
import Logging

/// Sends HMAC-signed requests to the DexKit backend: the one place that knows about secrets,
/// sessions, retries and clock skew.
///
/// - `/auth_token` is signed with the bootstrap key and yields a session (``AuthTokenResponse``).
/// - Every other endpoint is signed with the session secret and carries the session id in
///   `x-dex-session`. The session is refreshed ``DexCloudConfiguration/refreshMargin`` before it
///   expires and once after a 401; concurrent callers share a single refresh.
/// - Network errors, timeouts and 408/429/500/502/503/504 are retried per ``RetryPolicy``,
///   honouring `Retry-After`; every attempt is re-signed with a fresh timestamp.
/// - When the server refuses the timestamp (`timestamp_out_of_window`) and sends `Date`, the
///   client adopts the offset and retries once, if the offset is within
///   ``DexCloudConfiguration/maximumClockCorrection`` (24 h by default); otherwise the 401 is
///   returned.
/// - Cancelling the calling task stops the request and any pending retry.
///
/// Nothing secret is logged or put in an error: see <doc:RequestSigning>.
public actor ApiClient {
  /// The configuration the client was created with.
  public nonisolated let configuration: DexCloudConfiguration
  let transport: any HTTPTransport
  let tokenStore: any TokenStore
  let logger: Logger
  let sleep: @Sendable (Duration) async throws -> Void
  let now: @Sendable () -> Date
  let random: @Sendable () -> Double

  /// Server time minus local time, learned from a `Date` header after a timestamp refusal.
  public internal(set) var clockOffset: TimeInterval = 0
  var credential: SessionCredential?
  var triedStore = false
  var refreshTask: Task<Void, Never>?
  var refreshWaiters: [UInt64: CheckedContinuation<SessionCredential, any Error>] = [:]
  var nextWaiterID: UInt64 = 0
  /// Signatures sent recently, so a repeat inside the same second gets a later timestamp.
  var recentSignatures: [String: Date] = [:]

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - configuration: base URL, bootstrap key, timeouts and limits.
  ///   - transport: how requests are sent (URLSession by default).
  ///   - tokenStore: where the session is kept (in memory by default).
  ///   - logger: where requests are logged (never with secrets, session ids or signatures).
  ///   - sleep: how the client waits between retries; inject a recorder in tests.
  ///   - now: the local clock used for timestamps and expiry.
  ///   - random: a source of numbers in `0...1` for backoff jitter.
  public init(
    configuration: DexCloudConfiguration,
    transport: any HTTPTransport = URLSessionTransport(),
    tokenStore: any TokenStore = InMemoryTokenStore(),
    logger: Logger = Logger(label: "dexkit.cloud"),
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
    now: @escaping @Sendable () -> Date = { Date() },
    random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
  ) {
    self.configuration = configuration
    self.transport = transport
    self.tokenStore = tokenStore
    self.logger = logger
    self.sleep = sleep
    self.now = now
    self.random = random
  }

  /// Sends `body` to `endpoint` and decodes the 2xx JSON reply as `Response`: the way to call
  /// an endpoint (the reference app's `sendRequest(endpoint:body:responseModel:)`).
  ///
  /// - Parameters:
  ///   - endpoint: the route, for example ``Endpoints/vision``.
  ///   - body: the JSON body bytes, sent and signed as is.
  ///   - responseType: the type decoded from a 2xx reply.
  ///   - timeout: this request's timeout per attempt; the configuration's default (120 s) when
  ///     `nil`.
  ///   - deadline: when the whole call, every attempt and wait included, must be over: the
  ///     caller's time budget (``DexVisionService`` passes the scanner's). The call's budget is
  ///     the earlier of this and ``RetryPolicy/maximumElapsed``; no attempt outlasts it and no
  ///     retry starts that could not finish its wait before it. `nil`: the policy's budget alone.
  /// - Throws: ``DexCloudError`` for every failure, including non-2xx statuses and a reply
  ///   that is not a `Response`; of kind ``DexCloudError/Kind/timedOut`` when the budget ran out.
  public func send<Response: Decodable & Sendable>(
    _ endpoint: Endpoint, body: Data, as responseType: Response.Type, timeout: Duration? = nil,
    deadline: ContinuousClock.Instant? = nil
  ) async throws(DexCloudError) -> Response {
    let response = try await send(endpoint, body: body, timeout: timeout, deadline: deadline)
    return try decode(responseType, from: response, endpoint: endpoint)
  }

  /// Sends a signed request and returns the successful (2xx) response undecoded, for replies
  /// that are not JSON.
  ///
  /// `timeout` and `deadline` work as in ``send(_:body:as:timeout:deadline:)``.
  ///
  /// - Throws: ``DexCloudError`` for every failure, including non-2xx statuses.
  public func send(
    _ endpoint: Endpoint, body: Data, timeout: Duration? = nil,
    deadline: ContinuousClock.Instant? = nil
  ) async throws(DexCloudError) -> TransportResponse {
    let limit = configuration.maximumRequestBodyBytes
    guard body.count <= limit else {
      logger.notice(
        "Refused an oversized request before sending",
        metadata: ["endpoint": "\(endpoint.path)", "bytes": "\(body.count)", "limit": "\(limit)"])
      throw .payloadTooLarge(size: body.count, limit: limit)
    }
    let url = try url(for: endpoint)
    var session: SessionCredential? = nil
    if endpoint.signing == .session { session = try await currentCredential(deadline: deadline) }
    return try await perform(
      endpoint, url: url, body: body, timeout: timeout ?? configuration.requestTimeout,
      deadline: deadline, session: session)
  }

  /// The absolute URL for `endpoint` under the base URL.
  func url(for endpoint: Endpoint) throws(DexCloudError) -> URL {
    let base = configuration.baseURL
    guard let scheme = base.scheme?.lowercased(), scheme == "https" || scheme == "http",
      let host = base.host, !host.isEmpty
    else {
      throw DexCloudError(kind: .invalidConfiguration, message: "The base URL must be http(s).")
    }
    let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
    guard scheme == "https" || loopback || configuration.allowsInsecureHTTP else {
      throw DexCloudError(
        kind: .invalidConfiguration,
        message: "Plain http is only allowed to loopback hosts; use https.")
    }
    var text = base.absoluteString
    while text.hasSuffix("/") { text.removeLast() }
    guard let url = URL(string: text + endpoint.path) else {
      throw DexCloudError(kind: .invalidConfiguration, message: "The endpoint URL is invalid.")
    }
    return url
  }

  /// The request target that is signed: percent-encoded path plus `?query` when present.
  static func signedPath(of url: URL) -> String {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
      return url.path
    }
    let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
    if let query = components.percentEncodedQuery { return path + "?" + query }
    return path
  }

  func decode<Response: Decodable>(
    _ type: Response.Type, from response: TransportResponse, endpoint: Endpoint
  ) throws(DexCloudError) -> Response {
    do {
      return try JSONDecoder().decode(type, from: response.body)
    } catch {
      let excerpt =
        endpoint.signing == .bootstrapKey
        ? nil : redactor(session: credential, signature: nil).excerpt(of: response.body)
      throw DexCloudError(
        kind: .decoding,
        message: "The response is not a valid \(String(describing: type)).",
        statusCode: response.statusCode, bodyExcerpt: excerpt)
    }
  }

  nonisolated func redactor(session: SessionCredential?, signature: String?) -> Redactor {
    Redactor(
      secrets: [
        configuration.bootstrapKey.value, session?.secret.value, session?.sessionID, signature,
      ].compactMap { $0 })
  }
}
