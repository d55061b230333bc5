import Hummingbird

/// Answers any error a route did not turn into JSON (an unknown path, a body read failing) as
/// PixScan's JSON error, never as an HTML page or a dropped connection.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  let maximumBodyByteCount: Int

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as HTTPError where error.status == .notFound {
      return PixScanRoutes.errorResponse(.notFound(request.uri.path))
    } catch let error as HTTPResponseError where error.status == .contentTooLarge {
      return PixScanRoutes.errorResponse(.requestTooLarge(maximumByteCount: maximumBodyByteCount))
    } catch {
      return PixScanRoutes.errorResponse(.badRequest("the request could not be handled"))
    }
  }
}
