import Foundation

/// Where a streamed attempt of ``ApiClient``'s attempt loop leaves its body: a 2xx response's
/// body stream is kept here and the loop sees an empty body (so it returns at once); any other
/// response is read (its first ``errorBodyLimit`` bytes; a longer body, such as a proxy's HTML
/// error page, is cut there, not refused), so that retries, session refreshes and clock
/// corrections work as for any request. Retries therefore only happen before the first byte of
/// a successful body.
final class StreamSlot: @unchecked Sendable {
  /// The most of a refusal's body read.
  static let errorBodyLimit = 64 << 10

  private let lock = NSLock()
  private var stored: TransportStreamResponse?

  /// The successful response, once the loop returned.
  var response: TransportStreamResponse? { lock.withLock { stored } }

  func exchange(
    _ request: TransportRequest, timeout: Duration, on transport: any HTTPTransport
  ) async throws -> TransportResponse {
    let response = try await transport.stream(request, timeout: timeout)
    guard (200..<300).contains(response.statusCode) else {
      var body = Data()
      for try await chunk in response.body {
        body.append(chunk.prefix(Self.errorBodyLimit - body.count))
        if body.count >= Self.errorBodyLimit { break }  // ending the iteration ends the request
      }
      return TransportResponse(
        statusCode: response.statusCode, headers: response.headers, body: body)
    }
    lock.withLock { stored = response }
    return TransportResponse(
      statusCode: response.statusCode, headers: response.headers, body: Data())
  }
}
