import AsyncHTTPClient
import DexCloud
import Foundation
import NIOCore

extension AsyncHTTPClientTransport {
  /// See ``DexCloud/HTTPTransport/stream(_:timeout:)``: the head as soon as it arrives, the
  /// body as it streams.
  ///
  /// The body counts against ``maximumResponseBytes`` as it arrives (it throws
  /// `payloadTooLarge` and the request is cancelled once past it, so a reply that never ends
  /// is stopped), and `timeout` covers the whole call, body included (`timedOut`, then the
  /// request is cancelled, so a stalled reply is stopped). Ending the iteration of the body
  /// cancels the request and closes its connection.
  public func stream(
    _ request: TransportRequest, timeout: Duration
  ) async throws -> TransportStreamResponse {
    try Task.checkCancellation()
    let deadline = NIODeadline.now() + .nanoseconds(timeout.nanoseconds)
    let response: HTTPClientResponse
    do {
      response = try await client.execute(Self.outgoing(request), deadline: deadline)
    } catch {
      throw mapped(error)
    }
    let limit = maximumResponseBytes
    let body = response.body
    let (stream, sink) = AsyncThrowingStream<Data, any Error>.makeStream()
    let transport = self
    let pump = Task {
      var received = 0
      do {
        for try await buffer in body {
          received += buffer.readableBytes
          guard received <= limit else {
            throw DexCloudError(
              kind: .payloadTooLarge, message: "The response body is over \(limit) bytes.")
          }
          sink.yield(Data(buffer.readableBytesView))
        }
        sink.finish()
      } catch {
        sink.finish(throwing: transport.mapped(error))
      }
    }
    // The whole call's deadline, body included, whatever the client library does with it.
    let remaining = Duration.nanoseconds(max(0, (deadline - NIODeadline.now()).nanoseconds))
    let timer = Task {
      try await Task.sleep(for: remaining)
      sink.finish(
        throwing: DexCloudError(kind: .timedOut, message: "The upstream did not answer in time."))
      pump.cancel()
    }
    sink.onTermination = { _ in
      pump.cancel()
      timer.cancel()
    }
    return TransportStreamResponse(
      statusCode: Int(response.status.code), headers: Self.headers(of: response), body: stream)
  }
}
