import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The default ``HTTPTransport``, on `URLSession` (FoundationNetworking on Linux).
///
/// Each request carries its own timeout; cancelling the calling task cancels the data task.
/// Responses larger than ``maximumResponseBytes`` are refused.
public struct URLSessionTransport: HTTPTransport {
  private let session: URLSession
  /// The largest response body accepted (default 8 MiB).
  public let maximumResponseBytes: Int

  /// Creates a transport on `session` (an ephemeral session by default: no cookies, no cache).
  public init(session: URLSession? = nil, maximumResponseBytes: Int = 8 << 20) {
    self.session = session ?? URLSession(configuration: .ephemeral)
    self.maximumResponseBytes = maximumResponseBytes
  }

  /// See ``HTTPTransport/send(_:timeout:)``.
  public func send(
    _ request: TransportRequest, timeout: Duration
  ) async throws
    -> TransportResponse
  {
    try Task.checkCancellation()
    var urlRequest = URLRequest(url: request.url)
    urlRequest.httpMethod = request.method
    // FoundationNetworking truncates the request timeout to whole seconds (0.3 s becomes an
    // immediate timeout), so the exact timeout is enforced by our own timer below and the
    // session's is only a rounded-up backstop.
    urlRequest.timeoutInterval = max(1, timeout.timeInterval.rounded(.up)) + 1
    urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    // libcurl would otherwise add `Expect: 100-continue` and wait before sending large bodies.
    urlRequest.setValue("", forHTTPHeaderField: "Expect")
    if !request.body.isEmpty { urlRequest.httpBody = request.body }

    let box = DataTaskBox()
    let limit = maximumResponseBytes
    let timer = Task {
      try await Task.sleep(for: timeout)
      box.timeOut()
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<TransportResponse, any Error>) in
        let task = session.dataTask(with: urlRequest) { data, response, error in
          if let error {
            let failure =
              box.didTimeOut
              ? DexCloudError.timedOut(after: timeout) : Self.map(error, timeout: timeout)
            continuation.resume(throwing: failure)
            return
          }
          guard let http = response as? HTTPURLResponse else {
            continuation.resume(
              throwing: DexCloudError(kind: .network, message: "The response was not HTTP."))
            return
          }
          let body = data ?? Data()
          guard body.count <= limit else {
            continuation.resume(
              throwing: DexCloudError(
                kind: .network, message: "The response body is over \(limit) bytes.",
                statusCode: http.statusCode))
            return
          }
          var headers: [String: String] = [:]
          for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
          }
          continuation.resume(
            returning: TransportResponse(
              statusCode: http.statusCode, headers: headers, body: body))
        }
        box.start(task)
      }
    } onCancel: {
      box.cancel()
    }
  }

  private static func map(_ error: any Error, timeout: Duration) -> DexCloudError {
    guard let urlError = error as? URLError else {
      return DexCloudError(kind: .network, message: "The connection failed.")
    }
    switch urlError.code {
    case .cancelled: return .cancelled()
    case .timedOut: return .timedOut(after: timeout)
    default:
      return DexCloudError(
        kind: .network, message: "The connection failed (URLError \(urlError.code.rawValue)).")
    }
  }
}

/// Holds the data task so the cancellation handler can reach it, even when cancellation
/// arrives before the task was created.
private final class DataTaskBox: @unchecked Sendable {
  private let lock = NSLock()
  private var task: URLSessionDataTask?
  private var cancelled = false
  private var timedOut = false

  func start(_ task: URLSessionDataTask) {
    lock.lock()
    self.task = task
    let alreadyCancelled = cancelled
    lock.unlock()
    if alreadyCancelled { task.cancel() } else { task.resume() }
  }

  func cancel() {
    lock.lock()
    cancelled = true
    let task = self.task
    lock.unlock()
    task?.cancel()
  }

  /// Cancels the data task because the timeout elapsed; its error then reads as a timeout.
  func timeOut() {
    lock.lock()
    timedOut = true
    lock.unlock()
    cancel()
  }

  var didTimeOut: Bool {
    lock.lock()
    defer { lock.unlock() }
    return timedOut
  }
}
