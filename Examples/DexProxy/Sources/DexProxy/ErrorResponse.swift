import DexCloud
import DexCloudServer
import Foundation
import Hummingbird

/// OpenAI-style JSON error responses (`{"error":{"message","type","code"}}`).
@available(macOS 14, iOS 17, tvOS 17, *)
enum ErrorResponse {
  /// The code of the 503 sent while a shared replay store is unreachable.
  static let replayStoreUnavailable = "replay_store_unavailable"

  static func make(
    status: Int, message: String, type: String, code: String, headers extra: HTTPFields = [:]
  ) -> Response {
    let body: [String: [String: String]] = [
      "error": ["message": message, "type": type, "code": code]
    ]
    let data = (try? JSONEncoder().encode(body)) ?? Data()
    return json(status: status, data: data, headers: extra)
  }

  static func json(status: Int, data: Data, headers extra: HTTPFields = [:]) -> Response {
    var fields = extra
    fields[.contentType] = "application/json"
    return Response(
      status: .init(code: status), headers: fields,
      body: .init(byteBuffer: ByteBuffer(bytes: Array(data))))
  }

  /// The verifier's own status and body (401, or 503 when the replay cache is full).
  static func verification(_ error: RequestVerificationError) -> Response {
    json(status: error.httpStatus, data: error.responseBody)
  }
}
