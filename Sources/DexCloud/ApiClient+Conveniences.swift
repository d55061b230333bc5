import Foundation

extension ApiClient {
  /// Sends `body` and decodes the 2xx reply as `Response`: the `async throws` form of
  /// ``sendRequest(endpoint:body:responseModel:timeout:)``.
  ///
  /// - Parameters:
  ///   - endpoint: the route.
  ///   - body: the JSON body bytes.
  ///   - responseType: the type decoded from the reply.
  ///   - timeout: this request's timeout per attempt, or the configured default.
  /// - Throws: ``DexCloudError``.
  public func send<Response: Decodable & Sendable>(
    _ endpoint: Endpoint, body: Data, as responseType: Response.Type, timeout: Duration? = nil
  ) async throws(DexCloudError) -> Response {
    let response = try await send(endpoint, body: body, timeout: timeout)
    return try decode(responseType, from: response, endpoint: endpoint)
  }

  /// Encodes `request` as JSON, sends it, and decodes the 2xx reply as `Response`.
  ///
  /// - Parameters:
  ///   - endpoint: the route.
  ///   - request: the value encoded as the JSON body.
  ///   - responseType: the type decoded from the reply.
  ///   - timeout: this request's timeout per attempt, or the configured default.
  /// - Throws: ``DexCloudError``.
  public func send<Request: Encodable & Sendable, Response: Decodable & Sendable>(
    _ endpoint: Endpoint, json request: Request, as responseType: Response.Type,
    timeout: Duration? = nil
  ) async throws(DexCloudError) -> Response {
    let body: Data
    do {
      body = try JSONEncoder().encode(request)
    } catch {
      throw DexCloudError(
        kind: .invalidConfiguration,
        message: "Cannot encode \(String(describing: Request.self)) as JSON.")
    }
    return try await send(endpoint, body: body, as: responseType, timeout: timeout)
  }
}
