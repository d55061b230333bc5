import CoreMetrics
import HTTPSupport
import Prometheus

/// The measurements of one `dex-proxy` application, recorded through swift-metrics into a
/// Prometheus registry that this instance owns, and served as `GET /metrics` when
/// ``ProxyConfiguration/servesMetrics`` is on.
///
/// The registry belongs to the instance rather than to the process-wide `MetricsSystem`, so two
/// proxies in one process (tests, benchmarks) never mix their counts and nothing is bootstrapped
/// globally.
///
/// Every label value comes from a short, fixed set: route patterns (`NotFound` for a request no
/// route matched), status classes (`2xx`, `4xx`, `5xx`), outcome codes from the proxy's own
/// error bodies and store operation names. No secret, session id, subject, signature, raw path
/// or remote address is ever a label. Every request is counted once, by ``RequestLogMiddleware``.
///
/// | Metric | Type | Labels |
/// | --- | --- | --- |
/// | `dex_proxy_requests_total` | counter | `route`, `status`, `outcome` |
/// | `dex_proxy_request_duration_seconds` | histogram | `route` |
/// | `dex_proxy_upstream_duration_seconds` | histogram | `outcome` |
/// | `dex_proxy_replay_store_duration_seconds` | histogram | `operation` |
/// | `dex_proxy_replay_store_errors_total` | counter | `operation` |
/// | `dex_proxy_rate_limit_refusals_total` | counter | `route` |
/// | `dex_proxy_quota_refusals_total` | counter | (none) |
/// | `dex_proxy_replay_store_migrations_total` | counter | (none) |
public final class ProxyMetrics: Sendable {
  /// The metric names, for dashboards and tests.
  public enum Name {
    /// Requests answered, by route, status class and outcome code.
    public static let requests = "dex_proxy_requests_total"
    /// Time from a request's arrival to its response, by route.
    public static let requestDuration = "dex_proxy_request_duration_seconds"
    /// Time the upstream model took, by outcome (`ok` or an `upstream_*` code).
    public static let upstreamDuration = "dex_proxy_upstream_duration_seconds"
    /// Time each shared-store (PostgreSQL) operation took, failed ones included.
    public static let storeDuration = "dex_proxy_replay_store_duration_seconds"
    /// Shared-store operations that failed or timed out.
    public static let storeErrors = "dex_proxy_replay_store_errors_total"
    /// Requests refused by the rate limit (429 `rate_limit_exceeded`), by route.
    public static let rateLimitRefusals = "dex_proxy_rate_limit_refusals_total"
    /// Calls refused by a budget (429 `quota_exceeded`, `address_quota_exceeded`,
    /// `daily_budget_exhausted` or `session_limit_exceeded`).
    public static let quotaRefusals = "dex_proxy_quota_refusals_total"
    /// Table set-ups run against the shared store (one per process when all goes well).
    public static let migrations = "dex_proxy_replay_store_migrations_total"
  }

  /// The registry the metrics live in; `emit(into:)` renders the Prometheus text format.
  public let registry: PrometheusCollectorRegistry
  private let factory: PrometheusMetricsFactory

  /// Creates the metrics of one proxy instance in `registry` (a new, empty one by default).
  public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
    self.registry = registry
    var factory = PrometheusMetricsFactory(registry: registry)
    // Loopback stores answer in well under a millisecond; real models in seconds.
    let fast: [Duration] = [
      .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
      .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
      .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2),
    ]
    let slow: [Duration] = [
      .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(250),
      .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30),
      .seconds(60),
    ]
    factory.durationHistogramBuckets = [
      Name.requestDuration: slow, Name.upstreamDuration: slow, Name.storeDuration: fast,
    ]
    self.factory = factory
  }

  /// The current values in the Prometheus text exposition format (version 0.0.4).
  public func exposition() -> [UInt8] {
    var buffer: [UInt8] = []
    registry.emit(into: &buffer)
    return buffer
  }

  // MARK: Recording

  /// Where ``RequestLogMiddleware`` counts every answered request: ``Name/requests`` by route,
  /// status class and outcome, and ``Name/requestDuration`` by route.
  var requests: RequestMetrics {
    RequestMetrics(requests: Name.requests, duration: Name.requestDuration, factory: factory)
  }

  /// One upstream call that ended with `outcome` (`ok` or an ``UpstreamError/code``).
  func recordUpstream(outcome: String, duration: Duration) {
    CoreMetrics.Timer(
      label: Name.upstreamDuration, dimensions: [("outcome", outcome)], factory: factory
    ).recordNanoseconds(duration.nanoseconds)
  }

  /// One shared-store operation (`insert`, `rate`, `quota`, `refund`, `health`, `sweep`, `migrate`).
  func recordStore(operation: String, duration: Duration, failed: Bool) {
    CoreMetrics.Timer(
      label: Name.storeDuration, dimensions: [("operation", operation)], factory: factory
    ).recordNanoseconds(duration.nanoseconds)
    if failed {
      CoreMetrics.Counter(
        label: Name.storeErrors, dimensions: [("operation", operation)], factory: factory
      ).increment()
    }
  }

  /// One request on `route` refused by the rate limit.
  func recordRateLimitRefusal(route: String) {
    CoreMetrics.Counter(
      label: Name.rateLimitRefusals, dimensions: [("route", route)], factory: factory
    ).increment()
  }

  /// One call refused by a budget.
  func recordQuotaRefusal() {
    CoreMetrics.Counter(label: Name.quotaRefusals, factory: factory).increment()
  }

  /// One table set-up started against the shared store.
  func recordMigration() {
    CoreMetrics.Counter(label: Name.migrations, factory: factory).increment()
  }
}
