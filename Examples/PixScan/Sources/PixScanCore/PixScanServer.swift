import Foundation
import HTTPSupport
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Builds PixScan's Hummingbird application: the page and its API on 127.0.0.1.
///
/// It exists apart from the `pixscan` executable so that the tests run the same server in
/// process, on a free port.
public enum PixScanServer {
  /// The address PixScan listens on: loopback only, the photos never leave the machine.
  public static let host = "127.0.0.1"

  /// The application serving `session` and `page` (``PixScanPage/html()``) on ``host`` at
  /// `port` (0: the kernel picks one), answering only requests that carry `token` (see
  /// ``AccessToken``) from PixScan's own address.
  ///
  /// - Parameter onServerRunning: called with the bound port once the server listens.
  public static func application(
    session: TriageSession, page: String, port: Int, token: AccessToken, logger: Logger,
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let router = Router()
    let boundPort = NIOLockedValueBox(port)
    router.middlewares.add(
      ErrorMiddleware(maxBodyByteCount: session.limits.maxRequestBodyByteCount))
    router.middlewares.add(RequestGuard(token: token, port: boundPort))
    PixScanRoutes(session: session, page: page).register(on: router)
    // A stalled or trickling client is closed (see PixScanLimits.readTimeout).
    let readTimeout = TimeAmount(session.limits.readTimeout)
    return Application(
      router: router,
      server: .http1(
        configuration: .init(
          additionalChannelHandlers: [RequestReadDeadline(timeout: readTimeout)],
          idleTimeout: readTimeout)),
      configuration: .init(address: .hostname(host, port: port), serverName: "pixscan"),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        boundPort.withLockedValue { $0 = port }
        logger.info("PixScan listening", metadata: ["url": "http://\(host):\(port)/"])
        await onServerRunning(port)
      },
      logger: logger)
  }
}
