import DexCloud
import DexModel
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import Logging

@available(macOS 14, iOS 17, tvOS 17, *)
extension ProxyRoutes {
  /// How often a streamed reply writes a keep-alive comment while the model is silent: a
  /// write to a client that went away fails, which cancels the upstream call.
  static let keepAliveInterval = Duration.seconds(1)

  /// `/vision` with `"stream": true`, after every check a whole reply passes (signature,
  /// replay, rate, body, question, budgets: charged once, before the model is called).
  ///
  /// The upstream is asked for `stream: true`. A failure before its reply begins is answered
  /// like a whole reply's (the same status, error body and refund rule); after that the reply
  /// is `text/event-stream`: a description as `delta` events cut at
  /// ``/DexCloud/VisionResponse/maximumDescriptionCharacters`` (the model call is stopped
  /// there), an identification as `partial` events holding only the entry's fields, then one
  /// `done` event with the reply ``/DexCloud/VisionResponse/bounded(for:)`` gives, or an
  /// `error` event. The request keeps its in-flight slot until the stream ends, and a client
  /// that goes away cancels the upstream call.
  func streamedVision(
    _ prompt: ProxyPrompt, task: VisionRequest.Kind, image: String,
    charges: [ProxyBudgets.Charge], budgetDate: Date, context: ProxyRequestContext
  ) async -> Response {
    let upstreamStarted = ContinuousClock.now
    let pieces: AsyncThrowingStream<String, any Error>
    do {
      pieces = try await upstream.stream(prompt, image: image)
    } catch {
      metrics.recordUpstream(outcome: error.code, duration: ContinuousClock.now - upstreamStarted)
      if error.isRefundable, let budgets, !charges.isEmpty,
        await !budgets.refund(charges, on: budgetDate)
      {
        context.logger.notice("Budget refund failed; the call stays counted")
      }
      let response = ErrorResponse.make(
        status: error.httpStatus, message: error.description, type: "upstream_error",
        code: error.code)
      return answer(response, error.code)
    }
    let lease = InFlightSlot.current?.handOff()
    // Logged and counted once, by RequestLogMiddleware, when the stream ends, with its outcome.
    let outcome = RequestOutcome.streamed()
    var headers = HTTPFields()
    headers[.contentType] = "text/event-stream"
    headers[.cacheControl] = "no-store"
    let metrics = metrics
    let body = ResponseBody { writer in
      defer { lease?.release() }
      var relay = VisionRelay(task: task)
      let code = await relay.stream(pieces, to: &writer)
      metrics.recordUpstream(outcome: code, duration: ContinuousClock.now - upstreamStarted)
      outcome?.note(code)
    }
    // Until the body notes how it ended (a response never written keeps this one).
    return answer(Response(status: .ok, headers: headers, body: body), UpstreamError.cancelled.code)
  }
}

/// Turns the model's pieces into the client's events, within the bounds of a whole reply.
struct VisionRelay {
  let task: VisionRequest.Kind
  private var text = ""
  private var characters = 0
  private var parser = IncrementalScanParser()

  init(task: VisionRequest.Kind) {
    self.task = task
  }

  private enum Item: Sendable {
    case piece(String)
    case end
    case failure(UpstreamError)
    case tick
  }

  /// Relays `pieces` to `writer` as ``run(_:writer:)`` does, then ends the response, whichever
  /// way the relay ended (the reply done, failed or cut, the client gone, the task cancelled);
  /// the outcome code.
  ///
  /// A response left without its end would keep its connection waiting for the rest: the
  /// client for the body's last chunk, the server for the client's next request (and a
  /// graceful shutdown for both). Where the client has gone, ending fails, harmlessly.
  mutating func stream(
    _ pieces: AsyncThrowingStream<String, any Error>, to writer: inout any ResponseBodyWriter
  ) async -> String {
    let code = await run(pieces, writer: &writer)
    try? await writer.finish(nil)
    return code
  }

  /// Relays `pieces` to `writer` until the reply ends, fails or is cut, or the client goes
  /// away (or the task is cancelled); the outcome code (`ok`, an ``UpstreamError/code``).
  /// Leaves the response open: see ``stream(_:to:)``.
  private mutating func run(
    _ pieces: AsyncThrowingStream<String, any Error>, writer: inout any ResponseBodyWriter
  ) async -> String {
    let (items, sink) = AsyncStream<Item>.makeStream()
    let pump = Task {
      do {
        for try await piece in pieces { sink.yield(.piece(piece)) }
        sink.yield(.end)
      } catch {
        sink.yield(.failure(error as? UpstreamError ?? .unreachable))
      }
      sink.finish()
    }
    let ticker = Task {
      while !Task.isCancelled {
        try await Task.sleep(for: ProxyRoutes.keepAliveInterval)
        sink.yield(.tick)
      }
    }
    // Leaving (done, cut, failed, client gone) stops the model call and the keep-alives.
    defer {
      pump.cancel()
      ticker.cancel()
    }
    do {
      for await item in items {
        switch item {
        case .tick:
          try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
        case .piece(let piece):
          let cut = try await relay(piece, to: &writer)
          guard !cut else { return try await done(&writer) }
        case .end:
          return try await done(&writer)
        case .failure(let error):
          let event = ErrorEvent(
            error: .init(message: error.description, type: "upstream_error", code: error.code),
            status: error.httpStatus)
          try await write(try ServerSentEvent.json("error", event), to: &writer)
          return error.code
        }
      }
    } catch {
      return UpstreamError.cancelled.code
    }
    return UpstreamError.cancelled.code
  }

  /// Writes what `piece` adds; `true` when the description reached its limit.
  private mutating func relay(
    _ piece: String, to writer: inout any ResponseBodyWriter
  ) async throws -> Bool {
    switch task {
    case .ask:
      let limit = VisionResponse.maximumDescriptionCharacters
      let kept = String(piece.prefix(limit - characters))
      characters += kept.count
      text += kept
      if !kept.isEmpty {
        try await write(try ServerSentEvent.json("delta", Delta(content: kept)), to: &writer)
      }
      return characters >= limit
    case .identify:
      text += piece
      if let partial = parser.consume(text: piece) {
        try await write(try ServerSentEvent.json("partial", partial), to: &writer)
      }
      return false
    }
  }

  private func done(_ writer: inout any ResponseBodyWriter) async throws -> String {
    let reply = VisionResponse(role: "assistant", content: text).bounded(for: task)
    try await write(try ServerSentEvent.json("done", reply), to: &writer)
    return "ok"
  }

  private func write(_ event: ServerSentEvent, to writer: inout any ResponseBodyWriter) async throws
  {
    try await writer.write(ByteBuffer(bytes: event.encoded))
  }

  private struct Delta: Encodable { var content: String }

  private struct ErrorEvent: Encodable {
    struct Detail: Encodable {
      var message: String
      var type: String
      var code: String
    }
    var error: Detail
    var status: Int
  }
}
