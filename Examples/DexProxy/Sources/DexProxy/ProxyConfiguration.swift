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
  /// The most `/vision` calls one subject may make per UTC day (default
  /// ``defaultDailyQuota``); `nil` sets no quota. Counted in PostgreSQL when ``postgres`` is
  /// set, so it holds across instances. Subjects are chosen by clients, so this bounds one
  /// honest install, not an attacker: see ``addressDailyQuota`` and ``dailyBudget``.
  public var dailyQuota: Int?
  /// The most `/vision` calls from one client address per UTC day (an IPv6 address counted by
  /// its /64), whatever subjects it uses (default ``defaultAddressDailyQuota``); `nil` sets
  /// none.
  public var addressDailyQuota: Int?
  /// The most `/vision` calls from all clients together per UTC day: the ceiling on the model
  /// bill (default ``defaultDailyBudget``); `nil` sets none.
  public var dailyBudget: Int?
  /// The most sessions issued to one client address per UTC hour (default
  /// ``defaultSessionsPerAddressPerHour``); `nil` sets none.
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
  /// The most `/vision` calls of one session this instance works on at once (default 4),
  /// counted once a call's signature has verified (a session id alone is public, and a count
  /// taken on it would let anyone who saw it lock the session out), so that one session's calls
  /// sent from many addresses cannot hold every upstream call; past it 503 `busy`.
  public var maximumInFlightPerSession: Int
  /// The most request body bytes the `/vision` requests in flight may declare together (default
  /// ``defaultBodyBytesInFlight``; never less than ``maximumBodyBytes``), and one address its
  /// share of them (``maximumInFlightPerAddress`` of ``maximumInFlight``, at least one
  /// ``maximumBodyBytes``): a request is admitted only if its declared length
  /// (``maximumBodyBytes`` when it declares none) fits both, before any of it is read, so the
  /// bodies buffered at once are bounded whatever the slot count; past it 503 `busy`.
  public var maximumBodyBytesInFlight: Int
  /// How many `/vision` signatures the in-memory replay cache holds (default 100 000, about
  /// 10 MB; more than the default daily budget records). Used without ``postgres``.
  public var replayCacheCapacity: Int = 100_000
  /// How many `/auth_token` signatures the in-memory replay cache of their own holds (default
  /// 20 000, about 2 MB), apart from `/vision`'s, so that sessions minted in bulk fill only it.
  /// Used without ``postgres``.
  public var bootstrapReplayCacheCapacity: Int = 20_000
  /// Whether `GET /metrics` answers with the ``ProxyMetrics`` in the Prometheus text format
  /// (default `false`: 404). The endpoint needs no signature, so turn it on only where the
  /// balancer does not route `/metrics` from the internet, or where the port is private.
  public var servesMetrics: Bool

  // MARK: Defaults
  //
  // Sized for a small app: a few hundred people a day, each scanning a handful of photos.
  // Every ceiling is finite unless turned off explicitly (`nil` here, `off` in the
  // environment), so that a proxy started with only its secrets and upstream cannot run up an
  // unbounded bill.

  /// The default per-subject quota: 100 `/vision` calls a UTC day, several times what one person
  /// scanning by hand makes, so an honest install never meets it.
  public static let defaultDailyQuota = 100
  /// The default per-address quota: 500 calls a UTC day. Higher than one subject's, because
  /// carrier-grade NAT puts many users (a whole mobile network's cell, an office, a campus)
  /// behind one IPv4 address: five heavy users, or fifty light ones, fit behind one address.
  /// Lower than the global budget, so that one address (which may mint as many subjects as the
  /// hourly session limit lets it) spends at most a quarter of the day's calls.
  public static let defaultAddressDailyQuota = 500
  /// The default global budget: 2 000 calls a UTC day from all clients together, the ceiling on
  /// the model bill (a few hundred users a day at a handful of scans each). Raise it with the
  /// app's audience; a budget spent answers 429 `daily_budget_exhausted` until UTC midnight.
  public static let defaultDailyBudget = 2000
  /// The default cap on sessions issued to one client address per UTC hour: 60, one a minute,
  /// far more than an app that keeps its session for its lifetime asks for.
  public static let defaultSessionsPerAddressPerHour = 60
  /// The default budget of body bytes in flight: 512 MiB, 64 bodies of the largest default
  /// size at once and thousands of typical ones (a downscaled photo is a few hundred
  /// kilobytes). One address declares at most its share (8 of the 512 slots: 8 MiB, one
  /// largest body), so that exhausting the bytes takes as many addresses as exhausting the
  /// slots. It counts declared bytes: a body is held in a few copies while it is checked
  /// (bytes, decoded JSON, the image), so memory at the budget is several times it.
  public static let defaultBodyBytesInFlight = 512 << 20

  /// Every ceiling in effect, for the one start-up log line that states them.
  var ceilings: String {
    func count(_ value: Int?) -> String { value.map(String.init) ?? "off" }
    let auth = ProxyRoutes.authTokenPool(self)
    return [
      "rate \(rateLimit.burst) burst, \(rateLimit.refillPerSecond)/s per address and per session",
      "daily \(count(dailyQuota)) per subject, \(count(addressDailyQuota)) per address, "
        + "\(count(dailyBudget)) in all",
      "sessions \(count(sessionsPerAddressPerHour)) per address per hour",
      "in flight /vision \(maximumInFlight) (\(maximumInFlightPerAddress) per address, "
        + "\(maximumInFlightPerSession) per session, "
        + "\(max(maximumBodyBytesInFlight, maximumBodyBytes)) body bytes), "
        + "/auth_token \(auth.maximum) (\(auth.maximumPerAddress) per address)",
      "body /vision \(maximumBodyBytes) B, /auth_token \(ProxyRoutes.maximumAuthTokenBodyBytes) B "
        + "within \(ProxyRoutes.authTokenBodyTimeout(self).timeInterval) s",
      "read timeout \(readTimeout.timeInterval) s",
    ].joined(separator: "; ")
  }

  /// Creates a configuration.
  public init(
    bootstrapKeys: [SigningSecret], keyring: ServerKeyring,
    sessionLifetime: Duration = .seconds(3600), upstream: UpstreamConfiguration,
    host: String = "127.0.0.1", port: Int = 8080, maximumBodyBytes: Int = 8 << 20,
    rateLimit: RateLimit = .default, postgres: PostgresStoreConfiguration? = nil,
    trustedProxies: TrustedProxies = .none, dailyQuota: Int? = defaultDailyQuota,
    addressDailyQuota: Int? = defaultAddressDailyQuota, dailyBudget: Int? = defaultDailyBudget,
    sessionsPerAddressPerHour: Int? = defaultSessionsPerAddressPerHour,
    prompts: ProxyPrompts = ProxyPrompts(), readTimeout: Duration = .seconds(30),
    maximumInFlight: Int = 512, maximumInFlightPerAddress: Int = 8,
    maximumInFlightPerSession: Int = 4, maximumBodyBytesInFlight: Int = defaultBodyBytesInFlight,
    servesMetrics: Bool = false
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
    self.maximumInFlightPerSession = maximumInFlightPerSession
    self.maximumBodyBytesInFlight = maximumBodyBytesInFlight
    self.servesMetrics = servesMetrics
  }
}
