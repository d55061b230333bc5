import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// What the stub model server answers to one `/v1/chat/completions` request.
public enum UpstreamReply: Sendable {
  /// 200 with a chat completion whose message content is this text.
  case content(String, finishReason: String = "stop")
  /// 200 with `content: null` and this `refusal` (OpenAI structured refusal).
  case refusal(String)
  /// 200 with a chat completion whose message has this `role` (not the usual `assistant`) and
  /// this content: a model service that sends something unexpected.
  case roleContent(role: String, content: String)
  /// This status with an OpenAI-style error body.
  case status(Int)
  /// Waits, then answers with the wrapped reply.
  indirect case slow(Duration, UpstreamReply)
  /// 200 `text/event-stream`: each piece as a chat-completion chunk's `delta.content`, one
  /// every `interval`, then `[DONE]` (what OpenAI sends for `stream: true`).
  case stream([String], interval: Duration = .zero)
  /// 200 `text/event-stream` that never ends: `piece` every `interval`, forever.
  case endlessStream(String, interval: Duration)
  /// 200 `text/event-stream` that sends `pieces`, then no more content, never ending: a model
  /// that stalls. It writes a comment line (`: stalled`, which carries no text) every 50 ms,
  /// so that the stub notices when the other side hangs up (see ``StubUpstream/closedStreams``).
  case stalledStream([String])
  /// 200 `text/event-stream` that sends `pieces`, then holds the stream open (a `: held`
  /// comment every 50 ms, no text) until `gate` opens, then sends `rest` and `[DONE]`: a test
  /// can see what arrived while the model was still writing.
  case gatedStream([String], gate: UpstreamGate, then: [String])
}

/// Where a ``UpstreamReply/gatedStream(_:gate:then:)`` waits: closed until ``open()``.
public final class UpstreamGate: Sendable {
  private let opened = NIOLockedValueBox(false)

  /// A closed gate.
  public init() {}

  /// Lets every stream waiting here go on.
  public func open() { opened.withLockedValue { $0 = true } }

  /// Whether ``open()`` was called.
  public var isOpen: Bool { opened.withLockedValue { $0 } }
}

/// One request the stub received, decoded from the Chat Completions JSON.
public struct UpstreamRecord: Sendable {
  /// The `Authorization` header the proxy sent (the upstream API key).
  public var authorization: String?
  /// The `model` field.
  public var model: String?
  /// The `max_tokens` field.
  public var maxTokens: Int?
  /// The text of the `system` message (the proxy's instructions).
  public var instructions: String?
  /// The text part of the `user` message (the question, if any).
  public var text: String?
  /// The image part of the `user` message (a `data:` URL).
  public var imageURL: String?
  /// The `stream` field (`true` when the proxy asked for Server-Sent Events).
  public var stream: Bool?
}

/// A small OpenAI-compatible server on 127.0.0.1 (Hummingbird, port 0) answering scripted,
/// realistic chat-completion JSON: the model behind `dex-proxy` in its tests and benchmarks.
@available(macOS 14, iOS 17, tvOS 17, *)
public final class StubUpstream: @unchecked Sendable {
  /// A clean identification, the default reply.
  public static let cleanJSON = """
    {"commonName":"Monstera Deliciosa","category":"plant","scientificName":"Monstera deliciosa",\
    "summary":"A tropical climbing plant with split leaves.","facts":["Native to Central America",\
    "Its fruit is edible when ripe","Leaves develop holes with age"],"rarity":"Common",\
    "confidence":0.92}
    """

  private let lock = NSLock()
  private var queue: [UpstreamReply] = []
  private var fallback: UpstreamReply = .content(StubUpstream.cleanJSON)
  private var records: [UpstreamRecord] = []
  private var streamsClosedEarly = 0
  /// The port the server listens on, once started.
  public private(set) var port = 0
  private var server: LoopbackServer.Running?

  /// Creates a stopped server.
  public init() {}

  /// Replies used once each, in order, before the fallback.
  public func enqueue(_ replies: UpstreamReply...) {
    lock.withLock { queue.append(contentsOf: replies) }
  }
  /// The reply used whenever the queue is empty.
  public func setFallback(_ reply: UpstreamReply) { lock.withLock { fallback = reply } }
  /// Every request received so far.
  public var received: [UpstreamRecord] { lock.withLock { records } }
  /// How many streamed replies ended because the other side went away (a write failed or the
  /// request was cancelled) before the stub was done writing: cancellations that reached it.
  public var closedStreams: Int { lock.withLock { streamsClosedEarly } }

  private func next() -> UpstreamReply {
    lock.withLock { queue.isEmpty ? fallback : queue.removeFirst() }
  }

  /// Starts listening on 127.0.0.1 at a free port (see ``port``).
  public func start() async throws {
    let router = Router()
    router.post("/v1/chat/completions") { request, _ -> Response in
      let body = try await request.body.collect(upTo: 32 << 20)
      self.record(Data(body.readableBytesView), authorization: request.headers[.authorization])
      return try await self.respond(self.next())
    }
    let server = try await LoopbackServer.start(router, label: "stub-upstream")
    (port, self.server) = (server.port, server)
  }

  /// Stops the server and waits for it to end.
  public func stop() async {
    await server?.stop()
  }

  private func record(_ body: Data, authorization: String?) {
    var record = UpstreamRecord(authorization: authorization)
    if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
      record.model = object["model"] as? String
      record.maxTokens = object["max_tokens"] as? Int
      record.stream = object["stream"] as? Bool
      for message in object["messages"] as? [[String: Any]] ?? [] {
        let system = message["role"] as? String == "system"
        for part in message["content"] as? [[String: Any]] ?? [] {
          if part["type"] as? String == "text" {
            if system {
              record.instructions = part["text"] as? String
            } else {
              record.text = part["text"] as? String
            }
          }
          if part["type"] as? String == "image_url" {
            record.imageURL = (part["image_url"] as? [String: Any])?["url"] as? String
          }
        }
      }
    }
    lock.withLock { records.append(record) }
  }

  private func respond(_ reply: UpstreamReply) async throws -> Response {
    switch reply {
    case .content(let text, let finishReason):
      return try Self.completion(
        message: ["role": "assistant", "content": text], finishReason: finishReason)
    case .roleContent(let role, let text):
      return try Self.completion(message: ["role": role, "content": text], finishReason: "stop")
    case .refusal(let text):
      return try Self.completion(
        message: ["role": "assistant", "content": NSNull(), "refusal": text], finishReason: "stop")
    case .status(let code):
      let body = #"{"error":{"message":"stub failure","type":"server_error","code":"stub"}}"#
      var fields = HTTPFields()
      fields[.contentType] = "application/json"
      if code == 429, let retryAfter = HTTPField.Name("Retry-After") { fields[retryAfter] = "1" }
      return Response(
        status: .init(code: code), headers: fields,
        body: .init(byteBuffer: ByteBuffer(string: body)))
    case .slow(let delay, let then):
      try await Task.sleep(for: delay)
      return try await respond(then)
    case .stream(let pieces, let interval):
      return streaming { write in
        for piece in pieces {
          if interval > .zero { try await Task.sleep(for: interval) }
          try await write(Self.chunk(piece))
        }
        try await write("data: [DONE]\n\n")
      }
    case .endlessStream(let piece, let interval):
      return streaming { write in
        while true {
          try await Task.sleep(for: interval)
          try await write(Self.chunk(piece))
        }
      }
    case .gatedStream(let pieces, let gate, let rest):
      return streaming { write in
        for piece in pieces { try await write(Self.chunk(piece)) }
        while !gate.isOpen {
          try await Task.sleep(for: .milliseconds(50))
          try await write(": held\n\n")
        }
        for piece in rest { try await write(Self.chunk(piece)) }
        try await write("data: [DONE]\n\n")
      }
    case .stalledStream(let pieces):
      return streaming { write in
        for piece in pieces { try await write(Self.chunk(piece)) }
        while true {
          try await Task.sleep(for: .milliseconds(50))
          try await write(": stalled\n\n")
        }
      }
    }
  }

  /// A `text/event-stream` response written by `body`; a write that fails, or a cancellation,
  /// counts in ``closedStreams``.
  private func streaming(
    _ body: @escaping @Sendable (_ write: (String) async throws -> Void) async throws -> Void
  ) -> Response {
    var fields = HTTPFields()
    fields[.contentType] = "text/event-stream"
    return Response(
      status: .ok, headers: fields,
      body: ResponseBody { writer in
        do {
          try await body { text in try await writer.write(ByteBuffer(string: text)) }
        } catch {
          self.lock.withLock { self.streamsClosedEarly += 1 }
          throw error
        }
        try await writer.finish(nil)
      })
  }

  /// One chat-completion chunk event whose delta is `piece`.
  private static func chunk(_ piece: String) throws -> String {
    let object: [String: Any] = [
      "id": "chatcmpl-stub123", "object": "chat.completion.chunk", "created": 1_763_784_000,
      "model": "gpt-test-2026-01-01",
      "choices": [["index": 0, "delta": ["content": piece], "finish_reason": NSNull()]],
    ]
    let data = try JSONSerialization.data(withJSONObject: object)
    return "data: \(String(decoding: data, as: UTF8.self))\n\n"
  }

  private static func completion(message: [String: Any], finishReason: String) throws -> Response {
    let object: [String: Any] = [
      "id": "chatcmpl-stub123", "object": "chat.completion", "created": 1_763_784_000,
      "model": "gpt-test-2026-01-01",
      "choices": [
        ["index": 0, "message": message, "logprobs": NSNull(), "finish_reason": finishReason]
      ],
      "usage": ["prompt_tokens": 812, "completion_tokens": 96, "total_tokens": 908],
    ]
    let data = try JSONSerialization.data(withJSONObject: object)
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    return Response(
      status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: Array(data))))
  }
}
