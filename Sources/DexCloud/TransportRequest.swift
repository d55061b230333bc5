import Foundation

/// One HTTP request as handed to an ``HTTPTransport``: already signed, ready to send as is.
public struct TransportRequest: Sendable {
  /// The upper-case HTTP method.
  public var method: String
  /// The absolute URL, whose path and query are exactly what was signed.
  public var url: URL
  /// The header fields (lower-case names).
  public var headers: [String: String]
  /// The body bytes.
  public var body: Data

  /// Creates a request.
  public init(method: String, url: URL, headers: [String: String], body: Data) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }
}
