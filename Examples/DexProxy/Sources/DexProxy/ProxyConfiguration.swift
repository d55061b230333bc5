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
  /// Subjects are chosen by clients, so this bounds one honest install, not an attacker: see
  /// ``addressDailyQuota`` and ``dailyBudget``.
  public var dailyQuota: Int?
  /// The most `/vision` calls from one client address per UTC day (an IPv6 address counted by
  /// its /64), whatever subjects it uses; `nil` (the default) sets none.
  public var addressDailyQuota: Int?
  /// The most `/vision` calls from all clients together per UTC day: the ceiling on the model
  /// bill; `nil` (the default) sets none.
  public var dailyBudget: Int?
  /// The most sessions issued to one client address per UTC hour; `nil` (this initializer's
  /// default) sets none, ``fromEnvironment(_:)`` sets 60 unless told otherwise.
  public var sessionsPerAddressPerHour: Int?
  /// The server's prompts and the longest question a client may add (default 500 characters).
  public var prompts: ProxyPrompts
  /// How long a client has to send a request's headers (counted from the connection's start or
  /// the previous response) and then its body, and how long an idle connection is kept
  /// (default 30 s).
  public var readTimeout: Duration
  /// The most `/auth_token` and `/vision` requests this instance works on at once (default
  /// 512); past it they get 503 `busy` with `Retry-After`.
  public var maximumInFlight: Int
  /// The most of those one client address (an IPv6 address by its /64) has worked on at once
  /// (default 8), so that one address that trickles its bodies cannot hold every slot; past it
  /// 503 `busy` as well.
  public var maximumInFlightPerAddress: Int
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
    trustedProxies: TrustedProxies = .none, dailyQuota: Int? = nil,
    addressDailyQuota: Int? = nil, dailyBudget: Int? = nil, sessionsPerAddressPerHour: Int? = nil,
    prompts: ProxyPrompts = ProxyPrompts(), readTimeout: Duration = .seconds(30),
    maximumInFlight: Int = 512, maximumInFlightPerAddress: Int = 8, servesMetrics: Bool = false
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
    self.addressDailyQuota = addressDailyQuota
    self.dailyBudget = dailyBudget
    self.sessionsPerAddressPerHour = sessionsPerAddressPerHour
    self.prompts = prompts
    self.readTimeout = readTimeout
    self.maximumInFlight = maximumInFlight
    self.maximumInFlightPerAddress = maximumInFlightPerAddress
    self.servesMetrics = servesMetrics
  }
}
