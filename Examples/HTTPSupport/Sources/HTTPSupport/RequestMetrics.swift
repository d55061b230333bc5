import CoreMetrics

/// Where ``RequestLogMiddleware`` counts each answered request: a counter and a duration timer
/// with fixed names, labelled by route pattern, status class and outcome code.
///
/// It exists so that both example servers count requests the same way, through swift-metrics,
/// into whichever factory the server owns (dex-proxy's own Prometheus registry; PixScan's is the
/// process-wide `MetricsSystem`, a no-op unless the host bootstraps one).
///
/// Every label value comes from a bounded set: the route pattern a handler was registered with
/// (`NotFound` when none matched), the status class (`1xx` to `5xx`) and the server's own
/// outcome codes (``RequestOutcome``). No raw path, query, header, method or address is a label.
public struct RequestMetrics: Sendable {
  /// The counter's name (labels `route`, `status`, `outcome`).
  public let requestsLabel: String
  /// The duration timer's name (label `route`).
  public let durationLabel: String
  private let factory: any MetricsFactory

  /// Counts requests as `requests` and times them as `duration`, in `factory`.
  public init(
    requests: String, duration: String, factory: any MetricsFactory = MetricsSystem.factory
  ) {
    requestsLabel = requests
    durationLabel = duration
    self.factory = factory
  }

  /// The status class label of `status`: `2xx`, `4xx`… (clamped to `1xx`…`5xx`).
  public static func statusClass(_ status: Int) -> String {
    "\(min(max(status / 100, 1), 5))xx"
  }

  /// Counts one request answered on `route` with `status` and `outcome`, which took `duration`.
  public func record(route: String, status: Int, outcome: String, duration: Duration) {
    CoreMetrics.Counter(
      label: requestsLabel,
      dimensions: [("route", route), ("status", Self.statusClass(status)), ("outcome", outcome)],
      factory: factory
    ).increment()
    CoreMetrics.Timer(label: durationLabel, dimensions: [("route", route)], factory: factory)
      .recordNanoseconds(duration.nanoseconds)
  }
}
