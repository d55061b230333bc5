import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// Refuses every request that does not come from PixScan's own page, before any route runs.
///
/// It exists because a loopback server is reachable from any site the user visits: a page
/// elsewhere could send a cross-site POST, and DNS rebinding can make a foreign name resolve to
/// 127.0.0.1. So it requires a `Host` of `127.0.0.1`, `localhost` or `[::1]` with the server's
/// port; refuses a present `Origin` other than the server's own; requires the
/// ``AccessToken`` as the `X-PixScan-Token` header on every `/api/` request (thumbnails and the
/// `.txt` export too: the page fetches them with it; no cookie is accepted, as cookies do not
/// tell ports apart and every server on 127.0.0.1 would receive one); and requires
/// `application/json` on a POST with a body.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
  /// The header the page sends the token in (lowercase, as HTTP field names compare).
  static var tokenHeader: String { "x-pixscan-token" }
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
    let path = request.uri.path
    if path.hasPrefix("/api/") {
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

  static func hasBody(_ request: Request) -> Bool {
    if let length = request.headers[.contentLength] { return length != "0" }
    return request.headers[.transferEncoding] != nil
  }
}
