import DexCloud
import DexCloudServer
import Foundation

/// Everything `dex-proxy` needs: its secrets, its upstream, where it listens and its limits.
///
/// Build one in code, or read it from the environment with ``fromEnvironment(_:)``. Its
/// description never shows a secret (the key types are redacted).
public struct ProxyConfiguration: Sendable {
  /// The bootstrap keys accepted on `/auth_token` (the current one first; list the old one too
  /// while rotating).
  public var bootstrapKeys: [SigningSecret]
  /// The server keys that authenticate session ids and derive session secrets.
  public var keyring: ServerKeyring
  /// How long an issued session lives (default one hour).
  public var sessionLifetime: Duration
  /// The OpenAI-compatible model endpoint.
  public var upstream: UpstreamConfiguration
  /// The interface to bind (default `127.0.0.1`; use `0.0.0.0` behind a TLS-terminating proxy).
  public var host: String
  /// The port to bind (default 8080; 0 picks a free port).
  public var port: Int
  /// The largest request body accepted; larger ones get 413 (default 8 MiB, above the
  /// client's 6 MiB default).
  public var maximumBodyBytes: Int
  /// The per-client rate limit.
  public var rateLimit: RateLimit
  /// The PostgreSQL database whose replay cache every instance shares; `nil` (the default)
  /// keeps it in this process's memory.
  public var postgres: PostgresStoreConfiguration?
  /// The load balancers whose `X-Forwarded-For` names the client for the per-address limit
  /// (default none: the header is ignored).
  public var trustedProxies: TrustedProxies
  /// The most `/vision` calls one subject may make per UTC day; `nil` (the default) sets no
  /// quota. Counted in PostgreSQL when ``postgres`` is set, so it holds across instances.
  public var dailyQuota: Int?
  /// Whether `GET /metrics` answers with the ``ProxyMetrics`` in the Prometheus text format
  /// (default `false`: 404). The endpoint needs no signature, so turn it on only where the
  /// balancer does not route `/metrics` from the internet, or where the port is private.
  public var servesMetrics: Bool

  /// Creates a configuration.
  public init(
    bootstrapKeys: [SigningSecret], keyring: ServerKeyring,
    sessionLifetime: Duration = .seconds(3600), upstream: UpstreamConfiguration,
    host: String = "127.0.0.1", port: Int = 8080, maximumBodyBytes: Int = 8 << 20,
    rateLimit: RateLimit = .default, postgres: PostgresStoreConfiguration? = nil,
    trustedProxies: TrustedProxies = .none, dailyQuota: Int? = nil, servesMetrics: Bool = false
  ) {
    self.bootstrapKeys = bootstrapKeys
    self.keyring = keyring
    self.sessionLifetime = sessionLifetime
    self.upstream = upstream
    self.host = host
    self.port = port
    self.maximumBodyBytes = maximumBodyBytes
    self.rateLimit = rateLimit
    self.postgres = postgres
    self.trustedProxies = trustedProxies
    self.dailyQuota = dailyQuota
    self.servesMetrics = servesMetrics
  }
}
