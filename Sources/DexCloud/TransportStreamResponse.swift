import Foundation

/// One HTTP response whose body arrives in pieces, as returned by
/// ``HTTPTransport/stream(_:timeout:)``: the status and headers at once, the body as it comes.
public struct TransportStreamResponse: Sendable {
  /// The status code.
  public var statusCode: Int
  /// The header fields; look them up with ``value(forHeader:)``.
  public var headers: [String: String]
  /// The body's bytes as they arrive. It ends when the body does, and throws a
  /// ``DexCloudError`` when the connection fails, the timeout passes or the body grows past the
  /// transport's limit. Ending the iteration (or cancelling its task) cancels the request.
  public var body: AsyncThrowingStream<Data, any Error>

  /// Creates a response.
  public init(
    statusCode: Int, headers: [String: String], body: AsyncThrowingStream<Data, any Error>
  ) {
    self.statusCode = statusCode
    self.headers = headers
    self.body = body
  }

  /// A response whose whole body is already known, for transports that do not stream.
  public init(_ response: TransportResponse) {
    let body = response.body
    self.init(
      statusCode: response.statusCode, headers: response.headers,
      body: AsyncThrowingStream { continuation in
        if !body.isEmpty { continuation.yield(body) }
        continuation.finish()
      })
  }

  /// The value of a header, matching the name case-insensitively.
  public func value(forHeader name: String) -> String? {
    TransportResponse(statusCode: statusCode, headers: headers, body: Data())
      .value(forHeader: name)
  }

  /// Reads the rest of the body, at most `limit` bytes, into a ``TransportResponse``.
  ///
  /// - Throws: ``DexCloudError`` of kind ``DexCloudError/Kind/payloadTooLarge`` past `limit`,
  ///   or what the body throws.
  public func collected(upTo limit: Int) async throws -> TransportResponse {
    var data = Data()
    for try await chunk in body {
      guard chunk.count <= limit - data.count else {
        throw DexCloudError(
          kind: .payloadTooLarge, message: "The response body is over \(limit) bytes.",
          statusCode: statusCode)
      }
      data.append(chunk)
    }
    return TransportResponse(statusCode: statusCode, headers: headers, body: data)
  }
}
