import DexCloud
import DexCloudServer
import Hummingbird
import Logging

/// Builds the `dex-proxy` Hummingbird application: `POST /auth_token`, `POST /vision` and
/// `GET /health`, wired to DexCloud's verifier and issuer and to an OpenAI-compatible upstream.
///
/// Run the result with `runService()`, which also stops it gracefully on SIGTERM or SIGINT.
@available(macOS 14, iOS 17, tvOS 17, *)
public enum DexProxyApplication {
  /// Creates the application.
  ///
  /// - Parameters:
  ///   - configuration: secrets, upstream, address and limits.
  ///   - replayCache: where accepted signatures are remembered; share one store (Redis, a
  ///     database) between instances behind a load balancer.
  ///   - transport: the HTTP transport for upstream calls (URLSession by default).
  ///   - logger: where the server and every request are logged (never with secrets).
  ///   - onServerRunning: called with the bound port once the server listens (useful with
  ///     port 0).
  public static func make(
    configuration: ProxyConfiguration,
    replayCache: any ReplayCache = InMemoryReplayCache(),
    transport: (any HTTPTransport)? = nil,
    logger: Logger = Logger(label: "dexkit.proxy"),
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let authenticator = RequestAuthenticator(
      bootstrapKeys: configuration.bootstrapKeys,
      issuer: SessionIssuer(
        keyring: configuration.keyring, lifetime: configuration.sessionLifetime),
      verifier: RequestVerifier(replayCache: replayCache, logger: logger))
    let routes = ProxyRoutes(
      authenticator: authenticator,
      upstream: ChatCompletionsClient(
        configuration: configuration.upstream, transport: transport, logger: logger),
      limiter: TokenBucketRateLimiter(limit: configuration.rateLimit),
      maximumBodyBytes: configuration.maximumBodyBytes)
    let router = Router(context: ProxyRequestContext.self)
    routes.register(on: router)
    return Application(
      router: router,
      configuration: .init(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: "dex-proxy"),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        logger.info(
          "dex-proxy listening",
          metadata: [
            "host": "\(configuration.host)", "port": "\(port)",
            "model": "\(configuration.upstream.model)",
          ])
        await onServerRunning(port)
      },
      logger: logger)
  }
}
