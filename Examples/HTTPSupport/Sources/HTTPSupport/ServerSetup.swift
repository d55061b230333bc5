import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The one way dex-proxy and PixScan start Hummingbird: the router with every request logged
/// and counted first and the server's guards next, the read deadlines on every connection, the
/// services run beside the server, and one start-up line.
///
/// It exists so that a defence or a log applied to one server is applied to both, and so that
/// the order (log, then guards, then routes) is not left to each server to get right: the
/// router is made here, with ``RequestLogMiddleware`` and the guards added before any route, so
/// that no route (nor a 404) escapes them. Run the application with ``run(_:gracePeriod:)``, which stops
/// it gracefully on SIGTERM or SIGINT, giving requests in flight ``gracePeriod`` to finish.
public enum ServerSetup {
  /// The router: `requestLog` outermost, then `middlewares` in order, then the routes that
  /// `routes` adds (Hummingbird applies a middleware only to routes added after it).
  static func router<Context: RequestContext>(
    context: Context.Type, requestLog: RequestLogMiddleware<Context>,
    middlewares: [any MiddlewareProtocol<Request, Response, Context>] = [],
    routes: (Router<Context>) -> Void
  ) -> Router<Context> {
    let router = Router(context: context)
    router.add(middleware: requestLog)
    for middleware in middlewares { router.add(middleware: middleware) }
    routes(router)
    return router
  }

  /// The application serving the routes `routes` adds, as `settings` say, with `services` run
  /// beside it.
  ///
  /// - Parameters:
  ///   - context: the request context the routes take.
  ///   - requestLog: how every request is logged and counted; it runs first, for every request.
  ///   - middlewares: the server's guards, run in order after `requestLog` and before any route.
  ///   - routes: adds the routes to the router.
  ///   - logger: the server's logger, which each request's logger derives from.
  ///   - startupMetadata: what the start-up line `<name> listening` states beside `host` and
  ///     `port`, given the bound port (never a secret).
  ///   - onServerRunning: called with the bound port once the server listens, after the
  ///     start-up line.
  public static func application<Context: RequestContext>(
    _ settings: ServerSettings, context: Context.Type, requestLog: RequestLogMiddleware<Context>,
    middlewares: [any MiddlewareProtocol<Request, Response, Context>] = [],
    routes: (Router<Context>) -> Void,
    services: [any Service] = [], logger: Logger,
    startupMetadata: @escaping @Sendable (_ port: Int) -> Logger.Metadata = { _ in [:] },
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol where Context.Source == ApplicationRequestContextSource {
    let readTimeout = TimeAmount(settings.readTimeout)
    let connectTimeout = settings.connectTimeout.map { TimeAmount($0) }
    let bodyTimeout: (@Sendable (Substring) -> TimeAmount)? = settings.bodyTimeout.map {
      deadline in { @Sendable path in TimeAmount(deadline(path)) }
    }
    let router = Self.router(
      context: context, requestLog: requestLog, middlewares: middlewares, routes: routes)
    return Application(
      router: router,
      server: .http1(
        configuration: .init(
          // One handler per connection: this autoclosure runs for each.
          additionalChannelHandlers: [
            RequestReadDeadline(
              timeout: readTimeout, connectTimeout: connectTimeout,
              bodyTimeout: bodyTimeout)
          ],
          // None of Hummingbird's: ``RequestReadDeadline`` keeps the idle deadline, counted from
          // when a response has been sent. Hummingbird's counts from when the response's end is
          // queued, so it cut a large response to a slow client one read timeout later.
          idleTimeout: nil)),
      configuration: .init(
        address: .hostname(settings.host, port: settings.port), serverName: settings.name),
      services: services,
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        var metadata: Logger.Metadata = ["host": "\(settings.host)", "port": "\(port)"]
        metadata.merge(startupMetadata(port)) { $1 }
        logger.info("\(settings.name) listening", metadata: metadata)
        await onServerRunning(port)
      },
      logger: logger)
  }
}
