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
}
