import Foundation

/// One HTTP response as returned by an ``HTTPTransport``.
public struct TransportResponse: Sendable {
  /// The status code.
  public var statusCode: Int
  /// The header fields; look them up with ``value(forHeader:)``.
  public var headers: [String: String]
  /// The body bytes.
  public var body: Data

  /// Creates a response.
  public init(statusCode: Int, headers: [String: String], body: Data) {
    self.statusCode = statusCode
    self.headers = headers
    self.body = body
  }

  /// The value of a header, matching the name case-insensitively.
  public func value(forHeader name: String) -> String? {
    if let exact = headers[name] { return exact }
    return headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
  }
}
