import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The default ``HTTPTransport``, on `URLSession` (FoundationNetworking on Linux).
///
/// Each request carries its own timeout; cancelling the calling task cancels the data task.
/// Responses larger than ``maximumResponseBytes`` are refused with
/// ``DexCloudError/Kind/payloadTooLarge``: on the transport's own session while they arrive (a
/// declared length over the limit at once, a body as soon as it passes it, counted after any
/// `gzip` or `br` decoding), so a hostile server cannot make the client hold more. Redirects
/// are not followed: a signed request goes to the host it was signed for, or fails.
public struct URLSessionTransport: HTTPTransport {
  /// The caller's session, or `nil` for the transport's own streaming one.
  let session: URLSession?
  /// The largest response body accepted (default 8 MiB).
  public let maximumResponseBytes: Int

  /// Creates a transport.
  ///
  /// - Parameters:
  ///   - session: a session of your own (its configuration, proxies, TLS settings). Without
  ///     one, the transport uses its own ephemeral session (no cookies, no cache) that streams
  ///     responses and refuses redirects; a session of your own is read the way `URLSession`
  ///     reads it, so its responses are checked against the limit only once complete and its
  ///     redirect policy is its delegate's.
  ///   - maximumResponseBytes: the largest response body accepted.
  public init(session: URLSession? = nil, maximumResponseBytes: Int = 8 << 20) {
    self.session = session
    self.maximumResponseBytes = maximumResponseBytes
  }

  /// See ``HTTPTransport/send(_:timeout:)``.
  public func send(
    _ request: TransportRequest, timeout: Duration
  ) async throws
    -> TransportResponse
  {
    try Task.checkCancellation()
    let urlRequest = Self.urlRequest(for: request, timeout: timeout)
    let box = DataTaskBox()
    let limit = maximumResponseBytes
    let timer = Task {
      try await Task.sleep(for: timeout)
      box.timeOut()
    }
    defer { timer.cancel() }
    let session = self.session
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<TransportResponse, any Error>) in
        let finish: @Sendable (ResponseOutcome) -> Void = { outcome in
          continuation.resume(
            with: Self.result(of: outcome, timedOut: box.didTimeOut, timeout: timeout, limit: limit)
          )
        }
        let task: URLSessionDataTask
        if let session {
          task = session.dataTask(with: urlRequest) { data, response, error in
            finish(ResponseOutcome(response: response, body: data ?? Data(), error: error))
          }
        } else {
          task = ResponseStreamer.session.dataTask(with: urlRequest)
          ResponseStreamer.shared.register(task, limit: limit, finish: finish)
        }
        box.start(task)
      }
    } onCancel: {
      box.cancel()
    }
  }

  /// The `URLRequest` for `request`, with the session's timeout as a backstop only.
  static func urlRequest(for request: TransportRequest, timeout: Duration) -> URLRequest {
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
    return urlRequest
  }

  /// What a data task ended with.
  struct ResponseOutcome: Sendable {
    var response: URLResponse?
    var body: Data
    var error: (any Error)?
    /// The body passed the limit while it arrived (the task was cancelled for it).
    var tooLarge = false
  }

  static func result(
    of outcome: ResponseOutcome, timedOut: Bool, timeout: Duration, limit: Int
  ) -> Result<TransportResponse, any Error> {
    let status = (outcome.response as? HTTPURLResponse)?.statusCode
    if outcome.tooLarge || outcome.body.count > limit {
      return .failure(
        DexCloudError(
          kind: .payloadTooLarge, message: "The response body is over \(limit) bytes.",
          statusCode: status))
    }
    if let error = outcome.error {
      return .failure(
        timedOut ? DexCloudError.timedOut(after: timeout) : map(error, timeout: timeout))
    }
    guard let http = outcome.response as? HTTPURLResponse else {
      return .failure(DexCloudError(kind: .network, message: "The response was not HTTP."))
    }
    var headers: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
      if let key = key as? String, let value = value as? String { headers[key] = value }
    }
    return .success(
      TransportResponse(statusCode: http.statusCode, headers: headers, body: outcome.body))
  }

  static func map(_ error: any Error, timeout: Duration) -> DexCloudError {
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
final class DataTaskBox: @unchecked Sendable {
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
