import Foundation
import Hummingbird
import Logging

/// Builds PixScan's Hummingbird application: the page and its API on 127.0.0.1.
///
/// It exists apart from the `pixscan` executable so that the tests run the same server in
/// process, on a free port.
public enum PixScanServer {
  /// The address PixScan listens on: loopback only, the photos never leave the machine.
  public static let host = "127.0.0.1"

  /// The application serving `session` and `page` (``PixScanPage/html()``) on ``host`` at
  /// `port` (0: the kernel picks one).
  ///
  /// - Parameter onServerRunning: called with the bound port once the server listens.
  public static func application(
    session: TriageSession, page: String, port: Int, logger: Logger,
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let router = Router()
    router.middlewares.add(
      ErrorMiddleware(maxBodyByteCount: session.limits.maxRequestBodyByteCount))
    PixScanRoutes(session: session, page: page).register(on: router)
    return Application(
      router: router,
      configuration: .init(address: .hostname(host, port: port), serverName: "pixscan"),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        logger.info("PixScan listening", metadata: ["url": "http://\(host):\(port)/"])
        await onServerRunning(port)
      },
      logger: logger)
  }
}

/// Answers any error a route did not turn into JSON (an unknown path, a body read failing) as
/// PixScan's JSON error, never as an HTML page or a dropped connection.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  let maxBodyByteCount: Int

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as HTTPError where error.status == .notFound {
      return PixScanRoutes.errorResponse(.notFound(request.uri.path))
    } catch let error as HTTPResponseError where error.status == .contentTooLarge {
      return PixScanRoutes.errorResponse(.requestTooLarge(maxByteCount: maxBodyByteCount))
    } catch {
      return PixScanRoutes.errorResponse(.badRequest("the request could not be handled"))
    }
  }
}
