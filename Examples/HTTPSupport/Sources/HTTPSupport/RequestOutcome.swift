import NIOConcurrencyHelpers

/// The outcome code of the request being answered (`ok`, `issued`, `rate_limited`, `forbidden`…),
/// which ``RequestLogMiddleware`` logs and counts beside the route and status.
///
/// It exists so that a handler can say why it answered as it did without logging anything
/// itself: the middleware is the one place a request is logged and counted. A handler notes the
/// code with ``note(_:)``; a request whose handler notes none gets one from its status (`ok`
/// below 400, `not_found` for 404, else `status_` and the code).
///
/// A code is a label value: it must come from a short, fixed set the server defines (an error
/// code, never a client-supplied string, path, key or token).
public enum RequestOutcome {
  /// The current request's slot, set by ``RequestLogMiddleware`` for the request's task.
  @TaskLocal static var current: Slot?

  /// Notes `code` as the outcome of the request this task answers; the last note wins. Does
  /// nothing outside a request that ``RequestLogMiddleware`` observes.
  public static func note(_ code: String) {
    if let slot = current { slot.code = code }
  }

  /// The code for a request whose handler noted none, from its `status`.
  static func code(forStatus status: Int) -> String {
    switch status {
    case ..<400: "ok"
    case 404: "not_found"
    default: "status_\(status)"
    }
  }

  /// Where one request's code is kept while it is answered.
  final class Slot: Sendable {
    private let storage = NIOLockedValueBox<String?>(nil)

    /// The code noted so far, if any.
    var code: String? {
      get { storage.withLockedValue { $0 } }
      set { storage.withLockedValue { $0 = newValue } }
    }
  }
}
