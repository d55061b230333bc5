import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// Logs and counts every request a server answers, once, whatever answered it: a route, a
/// guard's refusal, a 404 for a path no route matches, or an error thrown through it.
///
/// It exists so that no route logs or counts itself (one forgotten would go unseen) and so that
/// what reaches the log is decided in one place. ``ServerSetup`` puts it outermost on every
/// router, before any guard or route is added. Each request gives one line, `Request handled`,
/// with `route` (the pattern the route was registered with, `/items/{id}` for `/items/:id`,
/// `NotFound` when none matched), `status`, `outcome` (``RequestOutcome``) and `duration_ms`,
/// on the request's logger (which carries Hummingbird's request id): `refusalLevel` for 4xx,
/// `warning` for 5xx, `level` otherwise; a streamed reply (``RequestOutcome/streamed()``) when its
/// body ends (and a streamed body that returns without ending its response has it ended here). Never the raw path or query, a header, a body, the method or the address, so no
/// key, token, signature or photo name a client sends reaches the log.
///
/// Hummingbird's own `LogRequestsMiddleware` logs the raw URI (with its query) and its
/// `MetricsMiddleware` labels by the client's method in the process-wide `MetricsSystem`; this
/// one keeps to bounded, server-chosen values instead.
public struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The level of answers below 400.
  public var level: Logger.Level
  /// The level of 4xx answers (refusals).
  public var refusalLevel: Logger.Level
  /// Where requests are counted, if anywhere.
  public var metrics: RequestMetrics?

  /// Logs answers below 400 at `level`, 4xx at `refusalLevel` and 5xx at `warning`; counts
  /// them in `metrics` when given.
  public init(
    level: Logger.Level = .info, refusalLevel: Logger.Level = .notice,
    metrics: RequestMetrics? = nil
  ) {
    self.level = level
    self.refusalLevel = refusalLevel
    self.metrics = metrics
  }

  /// Answers `request` through `next`, then logs and counts the answer (or the error thrown).
  public func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let started = ContinuousClock.now
    let slot = RequestOutcome.Slot()
    do {
      let response = try await RequestOutcome.$current.withValue(slot) {
        try await next(request, context)
      }
      let status = Int(response.status.code)
      guard slot.isStreamed else {
        observe(context, status: status, slot: slot, started: started)
        return response
      }
      // A streamed body is written after this returns: the request is observed when it ends
      // (written, failed, or dropped unwritten), once.
      let observation = Observation {
        observe(context, status: status, slot: slot, started: started)
      }
      var streamed = response
      let body = response.body
      streamed.body = ResponseBody(contentLength: body.contentLength) { writer in
        defer { observation.run() }
        let end = EndTrackingWriter.End()
        try await body.write(EndTrackingWriter(writer, end: end))
        // A body that returned without ending its response (it stopped early) still ends it:
        // otherwise the client would wait for the rest and the connection for a next request.
        // A body that threw is left to Hummingbird, which closes the connection.
        if !end.isEnded { try? await writer.finish(nil) }
      }
      return streamed
    } catch {
      // Answered by Hummingbird from the error: its status, else 500.
      let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500
      observe(context, status: status, slot: slot, started: started)
      throw error
    }
  }

  private func observe(
    _ context: Context, status: Int, slot: RequestOutcome.Slot, started: ContinuousClock.Instant
  ) {
    let elapsed = ContinuousClock.now - started
    let route = context.endpointPath ?? "NotFound"
    let outcome = slot.code ?? RequestOutcome.code(forStatus: status)
    metrics?.record(route: route, status: status, outcome: outcome, duration: elapsed)
    let logLevel: Logger.Level = status >= 500 ? .warning : (status >= 400 ? refusalLevel : level)
    let (seconds, attoseconds) = elapsed.components
    let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
    context.logger.log(
      level: logLevel, "Request handled",
      metadata: [
        "route": "\(route)", "status": "\(status)", "outcome": "\(outcome)",
        "duration_ms": "\(tenths / 10).\(tenths % 10)",
      ])
  }
}

/// Runs an observation once: when asked, or when dropped unasked (a response body the server
/// never wrote).
private final class Observation: Sendable {
  private let pending: NIOLockedValueBox<(@Sendable () -> Void)?>

  init(_ body: @escaping @Sendable () -> Void) {
    pending = NIOLockedValueBox(body)
  }

  func run() {
    let body = pending.withLockedValue { pending in
      defer { pending = nil }
      return pending
    }
    body?()
  }

  deinit { run() }
}
