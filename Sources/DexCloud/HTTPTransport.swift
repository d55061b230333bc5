import Foundation

/// Sends one HTTP request and returns the response: the seam between ``ApiClient`` and the
/// network.
///
/// ``URLSessionTransport`` is the default. Another implementation (AsyncHTTPClient on a server,
/// a fake to isolate a unit in a test) plugs in here; signing, retries and decoding stay in
/// ``ApiClient``.
public protocol HTTPTransport: Sendable {
  /// Sends `request`, giving up after `timeout`.
  ///
  /// Implementations throw ``DexCloudError`` with kind ``DexCloudError/Kind/timedOut``,
  /// ``DexCloudError/Kind/network`` or ``DexCloudError/Kind/cancelled``, honour task
  /// cancellation promptly, and return non-2xx responses rather than throwing.
  func send(_ request: TransportRequest, timeout: Duration) async throws -> TransportResponse

  /// Sends `request` and returns as soon as the response's head arrives, with the body as it
  /// streams: what streamed replies (Server-Sent Events) are read with.
  ///
  /// `timeout` covers the whole call, body included. The default implementation calls
  /// ``send(_:timeout:)`` and hands over the whole body as one piece, so a transport that
  /// cannot stream still works, without the early pieces.
  func stream(
    _ request: TransportRequest, timeout: Duration
  ) async throws -> TransportStreamResponse
}

extension HTTPTransport {
  /// Sends the request with ``send(_:timeout:)`` and returns its whole body as one piece.
  public func stream(
    _ request: TransportRequest, timeout: Duration
  ) async throws -> TransportStreamResponse {
    TransportStreamResponse(try await send(request, timeout: timeout))
  }
}
