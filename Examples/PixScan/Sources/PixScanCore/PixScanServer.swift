import CoreMetrics
import Foundation
import HTTPSupport
import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// Builds PixScan's Hummingbird application: the page and its API on 127.0.0.1.
///
/// It exists apart from the `pixscan` executable so that the tests run the same server in
/// process, on a free port. It is started the way dex-proxy is (``ServerSetup``): every request
/// logged and counted once, then answered as JSON on error, then guarded, then routed.
public enum PixScanServer {
  /// The address PixScan listens on: loopback only, the photos never leave the machine.
  public static let host = "127.0.0.1"

  /// The metric names PixScan counts its requests under (labels `route`, `status`, `outcome`;
  /// `route`), in the process-wide `MetricsSystem` unless a factory is given.
  public enum MetricName {
    /// Requests answered, by route pattern, status class and outcome code.
    public static let requests = "pixscan_requests_total"
    /// Time from a request's arrival to its response, by route pattern.
    public static let requestDuration = "pixscan_request_duration_seconds"
  }

  /// The application serving `session` and `page` (``PixScanPage/html()``) on ``host`` at
  /// `port` (0: the kernel picks one), answering only requests that carry `token` (see
  /// ``AccessToken``) from PixScan's own address.
  ///
  /// Every request is logged at `debug` (`pixscan --verbose`) as `Request handled` with its
  /// route pattern, status, outcome and duration (never its path, query or token), and counted
  /// in `metrics` (the process-wide `MetricsSystem` factory by default: a no-op unless the host
  /// bootstraps one).
  ///
  /// - Parameter onServerRunning: called with the bound port once the server listens.
  public static func application(
    session: TriageSession, page: String, port: Int, token: AccessToken, logger: Logger,
    metrics: any MetricsFactory = MetricsSystem.factory,
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let boundPort = NIOLockedValueBox(port)
    let requestLog = RequestLogMiddleware<BasicRequestContext>(
      level: .debug, refusalLevel: .debug,
      metrics: RequestMetrics(
        requests: MetricName.requests, duration: MetricName.requestDuration, factory: metrics))
    // A stalled or trickling client is closed (see PixScanLimits.readTimeout).
    let settings = ServerSettings(
      name: "PixScan", host: host, port: port, readTimeout: session.limits.readTimeout)
    return ServerSetup.application(
      settings, context: BasicRequestContext.self, requestLog: requestLog,
      middlewares: [
        ErrorMiddleware<BasicRequestContext>(
          maximumBodyByteCount: session.limits.maximumRequestBodyByteCount),
        RequestGuard<BasicRequestContext>(token: token, port: boundPort),
      ],
      routes: PixScanRoutes(session: session, page: page).register(on:), logger: logger,
      startupMetadata: { port in ["url": "http://\(host):\(port)/"] },
      onServerRunning: { port in
        boundPort.withLockedValue { $0 = port }
        await onServerRunning(port)
      })
  }
}
