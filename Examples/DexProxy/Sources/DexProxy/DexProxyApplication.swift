import DexCloud
import DexCloudServer
import HTTPSupport
import Hummingbird
import Logging
import ServiceLifecycle

/// Builds the `dex-proxy` Hummingbird application: `POST /auth_token`, `POST /vision`,
/// `GET /health` and (when configured) `GET /metrics`, wired to DexCloud's verifier and issuer and to an OpenAI-compatible upstream.
///
/// Run the result with `ServerSetup.run(_:gracePeriod:)` (HTTPSupport), which stops it gracefully
/// on SIGTERM or SIGINT, cancelling requests still open after the grace period.
@available(macOS 14, iOS 17, tvOS 17, *)
public enum DexProxyApplication {
  /// Creates the application.
  ///
  /// - Parameters:
  ///   - configuration: secrets, upstream, address and limits.
  ///   - replayCache: where accepted signatures are remembered. `nil` (the default) picks a
  ///     ``PostgresSharedStore`` when ``ProxyConfiguration/postgres`` is set, shared by every
  ///     instance behind a load balancer, and an in-memory cache otherwise. A cache that is also
  ///     a `Service` runs with the server; a ``SharedReplayStore`` is checked by `/health`.
  ///   - bootstrapReplayCache: where accepted `/auth_token` signatures are remembered. `nil`
  ///     (the default) uses `replayCache` when one is given or PostgreSQL is configured, and
  ///     otherwise an in-memory cache of its own
  ///     (``ProxyConfiguration/bootstrapReplayCacheCapacity`` signatures), apart from the one
  ///     `/vision` uses (``ProxyConfiguration/replayCacheCapacity``): sessions minted in bulk
  ///     from many networks can fill only it, and then refuse new sessions (503
  ///     `replay_cache_full`) until their signatures expire (at most about ten minutes: a
  ///     signature lives to the end of the ±300 s window around its timestamp), never the
  ///     calls of sessions already issued.
  ///   - transport: the HTTP transport for upstream calls (``AsyncHTTPClientTransport`` by
  ///     default).
  ///   - logger: where the server and every request are logged (never with secrets): one
  ///     `Request handled` line per request, by ``RequestLogMiddleware`` (route, status,
  ///     outcome, duration).
  ///   - metrics: where requests, upstream calls and store operations are measured; a new
  ///     registry for this instance by default. Served as `GET /metrics` when
  ///     ``ProxyConfiguration/servesMetrics`` is on.
  ///   - onServerRunning: called with the bound port once the server listens (useful with
  ///     port 0).
  public static func make(
    configuration: ProxyConfiguration,
    replayCache: (any ReplayCache)? = nil,
    bootstrapReplayCache: (any ReplayCache)? = nil,
    transport: (any HTTPTransport)? = nil,
    logger: Logger = Logger(label: "dexkit.proxy"),
    metrics: ProxyMetrics = ProxyMetrics(),
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    // Both in this process's memory unless a store is given or PostgreSQL is configured (whose
    // table is not filled by a count of rows): then /auth_token's signatures get their own.
    let inMemory = replayCache == nil && configuration.postgres == nil
    let replayCache: any ReplayCache =
      replayCache
      ?? configuration.postgres.map {
        PostgresSharedStore(configuration: $0, logger: logger, metrics: metrics)
      } ?? InMemoryReplayCache(capacity: configuration.replayCacheCapacity)
    let bootstrapReplayCache: any ReplayCache =
      bootstrapReplayCache
      ?? (inMemory
        ? InMemoryReplayCache(capacity: configuration.bootstrapReplayCacheCapacity) : replayCache)
    let authenticator = RequestAuthenticator(
      bootstrapKeys: configuration.bootstrapKeys,
      issuer: SessionIssuer(
        keyring: configuration.keyring, lifetime: configuration.sessionLifetime),
      verifier: RequestVerifier(replayCache: replayCache, logger: logger))
    let bootstrapVerifier = RequestVerifier(replayCache: bootstrapReplayCache, logger: logger)
    let routes = ProxyRoutes(
      authenticator: authenticator, bootstrapVerifier: bootstrapVerifier,
      upstream: ChatCompletionsClient(
        configuration: configuration.upstream, transport: transport, logger: logger),
      limiter: TokenBucketRateLimiter(limit: configuration.rateLimit),
      maximumBodyBytes: configuration.maximumBodyBytes,
      sharedStore: replayCache as? any SharedReplayStore,
      sharedLimiter: replayCache as? any SharedRateLimiter,
      trustedProxies: configuration.trustedProxies,
      prompts: configuration.prompts,
      budgets: budgets(configuration, store: replayCache as? any DailyQuotaStore),
      inFlight: InFlightLimit(
        maximum: configuration.maximumInFlight,
        maximumPerAddress: configuration.maximumInFlightPerAddress,
        maximumPerSession: configuration.maximumInFlightPerSession,
        maximumBytes: configuration.maximumBodyBytesInFlight,
        largestBody: configuration.maximumBodyBytes),
      authInFlight: ProxyRoutes.authTokenPool(configuration),
      health: (replayCache as? any SharedReplayStore).map { HealthProbe(store: $0) },
      metrics: metrics, servesMetrics: configuration.servesMetrics)
    var services: [any Service] = []
    if let service = replayCache as? any Service { services.append(service) }
    // A new connection has the short deadline for its first headers, and every body but
    // /vision's (whose slot needs a session) the short one too: a stranger's connection that
    // sends nothing useful is closed within seconds.
    let settings = ServerSettings(
      name: "dex-proxy", host: configuration.host, port: configuration.port,
      readTimeout: configuration.readTimeout,
      connectTimeout: ProxyRoutes.authTokenBodyTimeout(configuration),
      bodyTimeout: ProxyRoutes.bodyTimeout(configuration))
    return ServerSetup.application(
      settings, context: ProxyRequestContext.self,
      // Every request, a 404 or a refusal included, is logged and counted once, here.
      requestLog: RequestLogMiddleware(metrics: metrics.requests),
      routes: routes.register(on:), services: services, logger: logger,
      startupMetadata: { _ in
        [
          "model": "\(configuration.upstream.model)",
          // Every ceiling in effect, `off` where one was turned off, on this one line.
          "ceilings": "\(configuration.ceilings)",
        ]
      },
      onServerRunning: onServerRunning)
  }

  /// The budgets `configuration` asks for, counted in `store` (the shared PostgreSQL one) or in
  /// this process; `nil` when none is set.
  static func budgets(
    _ configuration: ProxyConfiguration, store: (any DailyQuotaStore)?
  ) -> ProxyBudgets? {
    let budgets = ProxyBudgets(
      store: store ?? InMemoryDailyQuota(), perSubject: configuration.dailyQuota,
      perAddress: configuration.addressDailyQuota, global: configuration.dailyBudget,
      sessionsPerAddressPerHour: configuration.sessionsPerAddressPerHour)
    return budgets.isEmpty ? nil : budgets
  }
}
