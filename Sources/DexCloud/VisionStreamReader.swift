import DexModel
import Foundation

/// Reads a `/vision` reply that was asked for as a stream: the Server-Sent Events of
/// <doc:RequestSigning> (`delta`, `partial`, `done`, `error`), or, from a backend that does
/// not stream, one JSON ``VisionResponse``.
struct VisionStreamReader {
  /// What the caller is handed.
  enum Update {
    /// A piece of a description's text.
    case text(String)
    /// A step of an identification.
    case identification(IdentificationUpdate)
  }

  /// The most of a reply that is not an event stream that is read (1 MiB).
  static let maximumPlainReplyBytes = 1 << 20
  /// The most of an event stream that is read (8 MiB, the size the default transport allows
  /// any body): a transport of the host's own may allow more, and an endless stream of small
  /// events must not grow what the reader or its caller holds until the deadline.
  static let maximumStreamBytes = 8 << 20

  let task: VisionRequest.Kind
  /// Whether the response is `text/event-stream`; otherwise it is one JSON reply.
  var expectsEvents = true
  /// Whether the `done` event arrived: nothing after it is read.
  private(set) var isFinished = false
  private var events = ServerSentEventParser()
  private var text = IncrementalScanParser()
  private var partial = PartialScanResult()
  private var plain = Data()
  private var receivedBytes = false
  private var streamBytes = 0
  private var sawDelta = false
  /// Scrubs the message of an `error` event, as the client scrubs a refusal's.
  private let redactor: Redactor
  private let maximumStreamBytes: Int

  init(
    task: VisionRequest.Kind, redactor: Redactor = Redactor(secrets: []),
    maximumStreamBytes: Int = Self.maximumStreamBytes
  ) {
    self.task = task
    self.redactor = redactor
    self.maximumStreamBytes = maximumStreamBytes
  }

  /// Hands the updates `chunk` completes to `yield` as each event is read (so those before a
  /// failing event, or a failing line in the same chunk, are delivered).
  ///
  /// - Throws: ``DexCloudError`` for an `error` event, an unreadable event or a reply over its
  ///   limit; ``/DexModel/ScanResult/ParseError`` when the finished reply identifies nothing.
  mutating func consume(_ chunk: Data, _ yield: (Update) -> Void) throws {
    guard !isFinished else { return }
    receivedBytes = receivedBytes || !chunk.isEmpty
    guard expectsEvents else {
      guard chunk.count <= Self.maximumPlainReplyBytes - plain.count else {
        throw DexCloudError(
          kind: .payloadTooLarge,
          message: "The reply is over \(Self.maximumPlainReplyBytes) bytes.")
      }
      plain.append(chunk)
      return
    }
    guard chunk.count <= maximumStreamBytes - streamBytes else {
      throw DexCloudError(
        kind: .payloadTooLarge, message: "The event stream is over \(maximumStreamBytes) bytes.")
    }
    streamBytes += chunk.count
    var events = self.events
    defer { self.events = events }
    try events.consume(chunk) { event in
      guard !isFinished else { return }
      for update in try handle(event) { yield(update) }
    }
  }

  /// The updates at the body's end.
  ///
  /// - Throws: ``DexCloudError`` of kind ``DexCloudError/Kind/network`` when the event stream
  ///   ended before its `done` event, or ``DexCloudError/Kind/decoding`` for an unreadable JSON
  ///   reply; ``/DexModel/ScanResult/ParseError`` as ``consume(_:)``.
  mutating func finish() throws -> [Update] {
    if expectsEvents {
      guard isFinished else {
        throw DexCloudError(kind: .network, message: "The reply stopped before its end.")
      }
      return []
    }
    guard let response = try? JSONDecoder().decode(VisionResponse.self, from: plain) else {
      throw DexCloudError(kind: .decoding, message: "The response is not a valid VisionResponse.")
    }
    isFinished = true
    switch task {
    case .ask: return [.text(response.content)]
    case .identify: return [.identification(.complete(try Self.result(of: response)))]
    }
  }

  /// What a failure after the request was answered becomes: for an identification whose
  /// event stream had begun, ``/DexModel/InterruptedScanError`` with the fields so far;
  /// otherwise the failure itself (a parse refusal stays a refusal, a one-piece JSON reply has
  /// no fields so far, and a cancelled task's `CancellationError` becomes
  /// ``DexCloudError/Kind/cancelled``).
  func interrupted(by error: any Error) -> any Error {
    let error = error is CancellationError ? DexCloudError.cancelled() : error
    guard task == .identify, expectsEvents, receivedBytes, !(error is ScanResult.ParseError)
    else { return error }
    let reason: any Error & Sendable =
      (error as? DexCloudError)
      ?? (error is CancellationError
        ? DexCloudError(kind: .cancelled, message: "The request was cancelled.")
        : DexCloudError(kind: .network, message: "The reply stopped before its end."))
    return InterruptedScanError(partial: partial, reason: reason)
  }

  /// The entry of a whole reply: the typed ``VisionResponse/entry`` when the backend sent one
  /// (checked to name something), else ``VisionResponse/content`` parsed leniently.
  static func result(of response: VisionResponse) throws(ScanResult.ParseError) -> ScanResult {
    guard let entry = response.entry else { return try ScanResult(jsonString: response.content) }
    guard entry.identifiesSomething else { throw .noIdentification }
    return entry
  }

  // MARK: Events

  private struct Delta: Decodable { var content: String }

  private mutating func handle(_ event: ServerSentEvent) throws -> [Update] {
    let data = Data(event.data.utf8)
    switch event.event {
    case "delta":
      let delta = try decode(Delta.self, from: data)
      sawDelta = true
      switch task {
      case .ask:
        return delta.content.isEmpty ? [] : [.text(delta.content)]
      case .identify:
        guard let grown = text.consume(text: delta.content) else { return [] }
        return merge(grown)
      }
    case "partial":
      guard task == .identify else { return [] }
      return merge(try decode(PartialScanResult.self, from: data))
    case "done":
      let response = try decode(VisionResponse.self, from: data)
      isFinished = true
      switch task {
      case .ask:
        return sawDelta || response.content.isEmpty ? [] : [.text(response.content)]
      case .identify:
        let result =
          response.entry == nil && response.content.isEmpty && sawDelta
          ? try text.finish() : try Self.result(of: response)
        return [.identification(.complete(result))]
      }
    case "error":
      let detail = APIErrorDetail.parse(data)?.redacted(by: redactor)
      struct Status: Decodable { var status: Int? }
      let status = (try? JSONDecoder().decode(Status.self, from: data))?.status
      throw DexCloudError(
        kind: .http,
        message: "The server stopped the reply.",
        statusCode: status, apiError: detail)
    default:
      return []
    }
  }

  /// Takes the fields of `update` that were not known yet: partial results only grow.
  private mutating func merge(_ update: PartialScanResult) -> [Update] {
    var merged = partial
    merged.commonName = merged.commonName ?? update.commonName
    merged.category = merged.category ?? update.category
    merged.scientificName = merged.scientificName ?? update.scientificName
    merged.summary = merged.summary ?? update.summary
    merged.facts = merged.facts ?? update.facts
    merged.rarity = merged.rarity ?? update.rarity
    merged.confidence = merged.confidence ?? update.confidence
    guard merged != partial else { return [] }
    partial = merged
    return [.identification(.partial(merged))]
  }

  private func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
    do {
      return try JSONDecoder().decode(type, from: data)
    } catch {
      throw DexCloudError(kind: .decoding, message: "An event of the reply is not readable.")
    }
  }
}
