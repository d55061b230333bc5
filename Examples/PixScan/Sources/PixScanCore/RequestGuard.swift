import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// Refuses every request that does not come from PixScan's own page, before any route runs.
///
/// It exists because a loopback server is reachable from any site the user visits: a page
/// elsewhere could send a cross-site POST, and DNS rebinding can make a foreign name resolve to
/// 127.0.0.1. So it requires a `Host` of `127.0.0.1`, `localhost` or `[::1]` with the server's
/// port; refuses a present `Origin` other than the server's own; requires the
/// ``AccessToken`` as the `X-PixScan-Token` header on every request except a `GET` or `HEAD`
/// of a path on ``openPaths`` (the page itself: it reads the token from the URL's fragment, so
/// it cannot send it when it is fetched); and requires `application/json` on a POST with a
/// body. No cookie is accepted, as cookies do not tell ports apart and every server on
/// 127.0.0.1 would receive one.
///
/// Deny by default: the token is asked of every path not on the allow-list, compared byte for
/// byte with the request's raw path, so that no other spelling of a route (`//api`, `/./api`,
/// `/%61pi`, a trailing slash: the router resolves several of them to the same handler) can
/// reach a handler without it. A route added later is guarded without being listed anywhere.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
  /// The header the page sends the token in (lowercase, as HTTP field names compare).
  static var tokenHeader: String { "x-pixscan-token" }
  /// The raw paths a `GET` or `HEAD` may fetch without the token: the page, and the assets it
  /// loads before it has read the token (none today). Exact bytes, no normalisation.
  static var openPaths: Set<Substring> { ["/"] }
  let token: AccessToken
  /// The port the server listens on, known once it is bound.
  let port: NIOLockedValueBox<Int>

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      try check(request)
    } catch {
      return PixScanRoutes.errorResponse(error)
    }
    return try await next(request, context)
  }

  func check(_ request: Request) throws(PixScanError) {
    let port = self.port.withLockedValue { $0 }
    let own = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    guard let host = request.head.authority,
      own.contains(host.lowercased())
    else { throw .forbidden("the Host is not PixScan's own address") }
    if let origin = request.headers[.origin],
      !own.contains(where: { "http://\($0)" == origin.lowercased() })
    {
      throw .forbidden("requests from other sites are refused")
    }
    if !Self.isOpen(request) {
      guard hasToken(request) else {
        throw .forbidden("the request lacks PixScan's token (open the URL pixscan printed)")
      }
    }
    if request.method == .post, Self.hasBody(request) {
      let type = request.headers[.contentType]?.lowercased() ?? ""
      guard type == "application/json" || type.hasPrefix("application/json;") else {
        throw .unsupportedMediaType
      }
    }
  }

  func hasToken(_ request: Request) -> Bool {
    guard let header = request.headers.first(where: { $0.name.canonicalName == Self.tokenHeader })
    else { return false }
    return token.matches(Substring(header.value))
  }

  /// Whether `request` may go without the token: a `GET` or `HEAD` whose raw path is exactly
  /// one of ``openPaths``.
  static func isOpen(_ request: Request) -> Bool {
    guard request.method == .get || request.method == .head,
      let target = request.head.path
    else { return false }
    let path = target.prefix { $0 != "?" }
    return openPaths.contains(path)
  }

  static func hasBody(_ request: Request) -> Bool {
    if let length = request.headers[.contentLength] { return length != "0" }
    return request.headers[.transferEncoding] != nil
  }
}
