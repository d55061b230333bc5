import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSessionTransport {
  /// See ``HTTPTransport/stream(_:timeout:)``: on the transport's own session, the body is
  /// handed on as it arrives, counted against ``maximumResponseBytes`` (the stream throws
  /// ``DexCloudError/Kind/payloadTooLarge`` and the request is cancelled as soon as it passes
  /// it), and `timeout` covers the whole call, body included. With a session of your own the
  /// body arrives whole, as ``send(_:timeout:)`` reads it.
  public func stream(
    _ request: TransportRequest, timeout: Duration
  ) async throws -> TransportStreamResponse {
    guard session == nil else {
      return TransportStreamResponse(try await send(request, timeout: timeout))
    }
    try Task.checkCancellation()
    let urlRequest = Self.urlRequest(for: request, timeout: timeout)
    let limit = maximumResponseBytes
    let box = DataTaskBox()
    let timer = Task {
      try await Task.sleep(for: timeout)
      box.timeOut()
    }
    let (body, sink) = AsyncThrowingStream<Data, any Error>.makeStream()
    sink.onTermination = { _ in
      timer.cancel()
      box.cancel()
    }
    let head = HeadBox()
    let response: URLResponse = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<URLResponse, any Error>) in
        head.set(continuation)
        let task = ResponseStreamer.session.dataTask(with: urlRequest)
        ResponseStreamer.shared.register(
          task,
          stream: ResponseStreamer.Stream(
            limit: limit,
            head: { head.resume(with: .success($0)) },
            data: { sink.yield($0) },
            end: { error, tooLarge in
              timer.cancel()
              let failure: (any Error)? =
                tooLarge
                ? DexCloudError(
                  kind: .payloadTooLarge, message: "The response body is over \(limit) bytes.")
                : error.map {
                  box.didTimeOut
                    ? DexCloudError.timedOut(after: timeout) : Self.map($0, timeout: timeout)
                }
              if head.resume(
                with: .failure(
                  failure
                    ?? DexCloudError(
                      kind: .network, message: "The connection closed before a response.")))
              {
                sink.finish()
              } else {
                sink.finish(throwing: failure)
              }
            }))
        box.start(task)
      }
    } onCancel: {
      box.cancel()
    }
    guard let http = response as? HTTPURLResponse else {
      sink.finish()
      throw DexCloudError(kind: .network, message: "The response was not HTTP.")
    }
    var headers: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
      if let key = key as? String, let value = value as? String { headers[key] = value }
    }
    return TransportStreamResponse(statusCode: http.statusCode, headers: headers, body: body)
  }
}

/// The head's continuation, resumed once: by the head, or by the end of a task that failed
/// before it.
private final class HeadBox: @unchecked Sendable {
  private let lock = NSLock()
  private var continuation: CheckedContinuation<URLResponse, any Error>?
  private var resumed = false

  func set(_ continuation: CheckedContinuation<URLResponse, any Error>) {
    lock.withLock { self.continuation = continuation }
  }

  /// Resumes the waiting caller; `true` when this call did (the head had not come yet).
  @discardableResult
  func resume(with result: Result<URLResponse, any Error>) -> Bool {
    let waiting = lock.withLock { () -> CheckedContinuation<URLResponse, any Error>? in
      guard !resumed else { return nil }
      resumed = true
      return continuation
    }
    waiting?.resume(with: result)
    return waiting != nil
  }
}
