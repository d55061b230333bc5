import NIOConcurrencyHelpers

/// The outcome code of the request being answered (`ok`, `issued`, `rate_limited`, `forbidden`…),
/// which ``RequestLogMiddleware`` logs and counts beside the route and status.
///
/// It exists so that a handler can say why it answered as it did without logging anything
/// itself: the middleware is the one place a request is logged and counted. A handler notes the
/// code with ``note(_:)``; a request whose handler notes none gets one from its status (`ok`
/// below 400, `not_found` for 404, else `status_` and the code).
///
/// A handler whose response body is written after it returns (a stream) calls
/// ``streamed()``: the request is then logged and counted once, when its body ends, with the
/// code the body notes last.
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

  /// Defers the current request's log line and count to the end of its response body, and
  /// returns where that body notes its outcome; `nil` outside a request that
  /// ``RequestLogMiddleware`` observes.
  ///
  /// It exists for a streamed reply, whose handler returns before the reply is written: logged
  /// at the handler's return, its duration and outcome would be those of its first byte. The
  /// request is logged when the body has been written, has failed, or was never written (the
  /// client left first), whichever comes first, once. A body that returns without ending its
  /// response (`finish`), because it stopped early, has the response ended for it.
  public static func streamed() -> Stream? {
    guard let slot = current else { return nil }
    slot.isStreamed = true
    return Stream(slot: slot)
  }

  /// Where a streamed response body notes its request's outcome (see ``streamed()``).
  public struct Stream: Sendable {
    fileprivate let slot: Slot

    /// Notes `code` as the request's outcome; the last note before the body ends wins.
    public func note(_ code: String) { slot.code = code }
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
    private let storage = NIOLockedValueBox<(code: String?, isStreamed: Bool)>((nil, false))

    /// The code noted so far, if any.
    var code: String? {
      get { storage.withLockedValue { $0.code } }
      set { storage.withLockedValue { $0.code = newValue } }
    }

    /// Whether the request is logged when its response body ends (``streamed()``).
    var isStreamed: Bool {
      get { storage.withLockedValue { $0.isStreamed } }
      set { storage.withLockedValue { $0.isStreamed = newValue } }
    }
  }
}
