import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The delegate of ``URLSessionTransport``'s own session: collects each response as it
/// arrives, so that a body past its limit is cut off there (and one that declares a larger
/// length is refused before its first byte), and refuses every redirect.
///
/// One session and one delegate serve every transport: a `URLSession` keeps its delegate until
/// it is invalidated, so a session per transport would outlive the transports made and dropped.
final class ResponseStreamer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  static let shared = ResponseStreamer()

  /// An ephemeral session (no cookies, no cache) whose callbacks come to ``shared``.
  static let session = URLSession(configuration: .ephemeral, delegate: shared, delegateQueue: nil)

  private struct Pending {
    var limit: Int
    var finish: @Sendable (URLSessionTransport.ResponseOutcome) -> Void
    var outcome = URLSessionTransport.ResponseOutcome(response: nil, body: Data(), error: nil)
  }

  /// A response handed on as it arrives (``URLSessionTransport``'s `stream`).
  struct Stream {
    var limit: Int
    var received = 0
    var tooLarge = false
    /// Called once with the head, before any `data`.
    var head: @Sendable (URLResponse) -> Void
    var data: @Sendable (Data) -> Void
    /// Called once when the task ends: its error, and whether the body passed the limit.
    var end: @Sendable ((any Error)?, Bool) -> Void
  }

  private let lock = NSLock()
  private var pending: [Int: Pending] = [:]
  private var streams: [Int: Stream] = [:]

  private override init() {
    super.init()
  }

  /// Collects `task`'s response (at most `limit` bytes of body) and hands it to `finish` once
  /// the task ends. Call before resuming the task.
  func register(
    _ task: URLSessionDataTask, limit: Int,
    finish: @escaping @Sendable (URLSessionTransport.ResponseOutcome) -> Void
  ) {
    lock.withLock { pending[task.taskIdentifier] = Pending(limit: limit, finish: finish) }
  }

  /// Hands `task`'s response on as it arrives; see ``Stream``. Call before resuming the task.
  func register(_ task: URLSessionDataTask, stream: Stream) {
    lock.withLock { streams[task.taskIdentifier] = stream }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let id = dataTask.taskIdentifier
    if let stream = lock.withLock({ streams[id] }) {
      let allowed = response.expectedContentLength <= Int64(stream.limit)
      if allowed {
        stream.head(response)
      } else {
        lock.withLock { streams[id]?.tooLarge = true }
      }
      completionHandler(allowed ? .allow : .cancel)
      if !allowed { dataTask.cancel() }
      return
    }
    let allowed = lock.withLock { () -> Bool in
      let id = dataTask.taskIdentifier
      guard let limit = pending[id]?.limit else { return false }
      pending[id]?.outcome.response = response
      // A declared length is checked before the body (the compressed length, for a coded
      // body: the decoded bytes are counted as they come).
      if response.expectedContentLength > Int64(limit) { pending[id]?.outcome.tooLarge = true }
      return pending[id]?.outcome.tooLarge == false
    }
    completionHandler(allowed ? .allow : .cancel)
    // FoundationNetworking on Linux ignores the disposition: cancel the task itself.
    if !allowed { dataTask.cancel() }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let id = dataTask.taskIdentifier
    let streamed = lock.withLock { () -> (handler: (@Sendable (Data) -> Void)?, found: Bool) in
      guard let stream = streams[id] else { return (nil, false) }
      if stream.tooLarge || data.count > stream.limit - stream.received {
        streams[id]?.tooLarge = true
        return (nil, true)
      }
      streams[id]?.received += data.count
      return (stream.data, true)
    }
    if streamed.found {
      if let handler = streamed.handler { handler(data) } else { dataTask.cancel() }
      return
    }
    let overLimit = lock.withLock { () -> Bool in
      let id = dataTask.taskIdentifier
      guard let entry = pending[id] else { return false }
      if entry.outcome.tooLarge { return true }
      if data.count > entry.limit - entry.outcome.body.count {
        pending[id]?.outcome.tooLarge = true
        pending[id]?.outcome.body = Data()
        return true
      }
      // Appended in place: a copy of the entry would copy the whole body on every chunk.
      pending[id]?.outcome.body.append(data)
      return false
    }
    if overLimit { dataTask.cancel() }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    // The redirect response itself is the answer: a 3xx the client reports as an HTTP error.
    completionHandler(nil)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    if let stream = lock.withLock({ streams.removeValue(forKey: task.taskIdentifier) }) {
      stream.end(error, stream.tooLarge)
      return
    }
    guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else {
      return
    }
    var outcome = entry.outcome
    outcome.error = error
    if outcome.response == nil { outcome.response = task.response }
    entry.finish(outcome)
  }
}
