import DexModel
import DexTestSupport
import Foundation
import Testing

@testable import DexCloud

/// The streamed `/vision` reply on the client: Server-Sent Events, the typed entry, the plain
/// `{role, content}` fallback and the retry rule (a scripted transport hands each body over
/// whole; the real streaming runs against dex-proxy in DexProxyTests).
@Suite("Vision streaming (scripted transport)")
struct VisionStreamingTests {
  static let entry = ScanResult(
    commonName: "Monstera", category: "plant", summary: "A climbing plant.", rarity: "Common",
    confidence: 0.9)

  static func events(_ events: [ServerSentEvent]) -> TransportResponse {
    TransportResponse(
      statusCode: 200, headers: ["Content-Type": "text/event-stream"],
      body: events.reduce(Data()) { $0 + $1.encoded })
  }

  static func service(_ transport: ScriptedTransport) -> DexVisionService {
    DexVisionService(client: ClientUnitTests.client(transport))
  }

  /// The events a new parser reads from `wire` handed over in chunks of `size` bytes.
  static func parse(_ wire: Data, inChunksOf size: Int) throws -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    var index = 0
    while index < wire.count {
      events += try parser.consume(wire[index..<min(index + size, wire.count)])
      index += size
    }
    return events
  }

  @Test func eventsAreSplitWhateverTheChunks() throws {
    let wire = Data(
      "event: delta\ndata: {\"content\":\"a\"}\n\r\n: keep-alive\n\nevent: done\r\ndata: x\ndata: y\n\n"
        .utf8)
    for size in 1...wire.count {
      let events = try Self.parse(wire, inChunksOf: size)
      #expect(
        events == [
          ServerSentEvent(event: "delta", data: #"{"content":"a"}"#),
          ServerSentEvent(event: "done", data: "x\ny"),
        ])
    }
  }

  @Test func aLineThatNeverEndsIsRefused() {
    var parser = ServerSentEventParser(maximumLineBytes: 64)
    #expect(throws: DexCloudError.self) {
      _ = try parser.consume(Data(repeating: UInt8(ascii: "a"), count: 65))
    }
  }

  @Test func aStreamedDescriptionJoinsItsDeltas() async throws {
    let transport = ScriptedTransport([
      .respond(
        Self.events([
          try .json("delta", ["content": "A bowl "]), try .json("delta", ["content": "of ramen."]),
          try .json("done", VisionResponse(role: "assistant", content: "A bowl of ramen.")),
        ]))
    ])
    var pieces: [String] = []
    for try await piece in Self.service(transport).streamDescription(
      imageData: Data([0xFF]), question: "What?")
    {
      pieces.append(piece)
    }
    #expect(pieces == ["A bowl ", "of ramen."])
    let request = try #require(transport.sent.first)
    #expect(request.headers["accept"] == "text/event-stream")
    let body = try JSONDecoder().decode(VisionRequest.self, from: request.body)
    #expect(body.stream == true && body.task == .ask && body.question == "What?")
  }

  @Test func typedPartialsThenTheTypedEntry() async throws {
    let transport = ScriptedTransport([
      .respond(
        Self.events([
          try .json("partial", PartialScanResult(commonName: "Monstera")),
          // A later event cannot change a field already shown: previews only grow.
          try .json("partial", PartialScanResult(commonName: "Other", category: "plant")),
          try .json("done", VisionResponse(role: "assistant", content: "", entry: Self.entry)),
        ]))
    ])
    var updates: [IdentificationUpdate] = []
    for try await update in Self.service(transport).streamIdentification(
      imageData: Data([0xFF]), categoryHint: nil)
    {
      updates.append(update)
    }
    #expect(
      updates == [
        .partial(PartialScanResult(commonName: "Monstera")),
        .partial(PartialScanResult(commonName: "Monstera", category: "plant")),
        .complete(Self.entry),
      ])
  }

  @Test func anEntryThatNamesNothingIsRefused() async throws {
    let unknown = ScanResult(commonName: "Unknown", category: "unknown")
    let transport = ScriptedTransport([
      .respond(
        TransportResponse(
          statusCode: 200, headers: [:],
          body: try JSONEncoder().encode(
            VisionResponse(role: "assistant", content: "{}", entry: unknown))))
    ])
    await #expect(throws: ScanResult.ParseError.noIdentification) {
      _ = try await Self.service(transport).identify(imageData: Data([0xFF]), categoryHint: nil)
    }
  }

  @Test func aPlainReplyToAStreamedRequestIsReadWhole() async throws {
    let transport = ScriptedTransport([
      .respond(
        TransportResponse(
          statusCode: 200, headers: ["Content-Type": "application/json"],
          body: Data(
            #"{"role":"assistant","content":"{\"commonName\":\"Fern\",\"category\":\"plant\"}"}"#
              .utf8)))
    ])
    var updates: [IdentificationUpdate] = []
    for try await update in Self.service(transport).streamIdentification(
      imageData: Data([0xFF]), categoryHint: nil)
    {
      updates.append(update)
    }
    #expect(updates == [.complete(ScanResult(commonName: "Fern", category: "plant"))])
  }

  @Test func textDeltasAreParsedIncrementallyAndACutKeepsTheFields() async throws {
    let transport = ScriptedTransport([
      .respond(
        Self.events([
          try .json("delta", ["content": #"{"commonName": "Fern", "#]),
          try .json("delta", ["content": #""category": "plant", "summ"#]),
          try .json("error", ["status": 504]),
        ]))
    ])
    var partials: [PartialScanResult] = []
    await #expect {
      for try await update in Self.service(transport).streamIdentification(
        imageData: Data([0xFF]), categoryHint: nil)
      {
        if case .partial(let partial) = update { partials.append(partial) }
      }
    } throws: { error in
      guard let error = error as? InterruptedScanError else { return false }
      return error.partial == PartialScanResult(commonName: "Fern", category: "plant")
        && (error.reason as? DexCloudError)?.statusCode == 504
    }
    #expect(partials.last == PartialScanResult(commonName: "Fern", category: "plant"))
  }

  @Test func aStreamIsRetriedBeforeItsFirstByte() async throws {
    let transport = ScriptedTransport([
      .respond(TransportResponse(statusCode: 503, headers: [:], body: Data())),
      .respond(Self.events([try .json("done", VisionResponse(role: "assistant", content: "Hi."))])),
    ])
    var text = ""
    for try await piece in Self.service(transport).streamDescription(
      imageData: Data([0xFF]), question: nil)
    {
      text += piece
    }
    #expect(text == "Hi.")
    #expect(transport.sentCount == 2)
  }

  @Test func aStreamWithoutItsLastEventIsAnError() async throws {
    let transport = ScriptedTransport([
      .respond(Self.events([try .json("delta", ["content": "A bowl"])]))
    ])
    await #expect(throws: DexCloudError.self) {
      for try await _ in Self.service(transport).streamDescription(
        imageData: Data([0xFF]), question: nil)
      {}
    }
  }

  /// Collects an identification stream's updates and the error it ended with.
  static func identification(
    _ transport: ScriptedTransport
  ) async -> (updates: [IdentificationUpdate], error: (any Error)?) {
    var updates: [IdentificationUpdate] = []
    do {
      for try await update in service(transport).streamIdentification(
        imageData: Data([0xFF]), categoryHint: nil)
      {
        updates.append(update)
      }
      return (updates, nil)
    } catch {
      return (updates, error)
    }
  }

  /// The error a streamed description ends with, when it is a `DexCloudError`.
  static func descriptionFailure(_ transport: ScriptedTransport) async -> DexCloudError? {
    do {
      for try await _ in service(transport).streamDescription(
        imageData: Data([0xFF]), question: nil)
      {}
      return nil
    } catch {
      return error as? DexCloudError
    }
  }

  /// A body that ends cleanly before its `done` event still hands over the fields so far, as a
  /// cut connection does.
  @Test func aCleanEndBeforeDoneKeepsTheFields() async throws {
    let transport = ScriptedTransport([
      .respond(Self.events([try .json("partial", PartialScanResult(commonName: "Monstera"))]))
    ])
    let (updates, error) = await Self.identification(transport)
    #expect(updates == [.partial(PartialScanResult(commonName: "Monstera"))])
    let interrupted = try #require(error as? InterruptedScanError)
    #expect(interrupted.partial == PartialScanResult(commonName: "Monstera"))
    #expect((interrupted.reason as? DexCloudError)?.kind == .network)
  }

  /// An `error` event's message is scrubbed of token-looking runs and cut, as a refusal's is.
  @Test func anErrorEventsMessageIsRedactedAndCut() async throws {
    let secret = String(repeating: "k3Y", count: 16)
    let message = "upstream said \(secret) " + String(repeating: "x", count: 70_000)
    let transport = ScriptedTransport([
      .respond(
        TransportResponse(
          statusCode: 200, headers: ["Content-Type": "text/event-stream"],
          body: try ServerSentEvent.json(
            "error", ["error": ["message": String(message.prefix(60_000)), "code": secret]]
          ).encoded))
    ])
    let failure = await Self.descriptionFailure(transport)
    let detail = try #require(failure?.apiError)
    let text = try #require(detail.message)
    #expect(text.hasPrefix("upstream said [redacted]"))
    #expect(text.count <= 300)
    #expect(detail.code == "[redacted]")
    #expect(!"\(try #require(failure))".contains(secret))
  }

  /// A byte-order mark at the start is skipped, in whatever pieces it arrives; anywhere else,
  /// and a partial one, are text.
  @Test func aLeadingByteOrderMarkIsSkipped() throws {
    let wire = Data([0xEF, 0xBB, 0xBF]) + Data("event: done\ndata: x\n\n".utf8)
    for size in 1...4 {
      let events = try Self.parse(wire, inChunksOf: size)
      #expect(events == [ServerSentEvent(event: "done", data: "x")], "chunks of \(size)")
    }
    // Two of its three bytes are text: they begin the first field's name, which is then no
    // field this reader knows.
    var partial = ServerSentEventParser()
    #expect(try partial.consume(Data([0xEF, 0xBB]) + Data("data: y\n\n".utf8)).isEmpty)
    var second = ServerSentEventParser()
    let twice = Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF]) + Data("data: z\n\n".utf8)
    #expect(try second.consume(twice).isEmpty)  // the second mark is part of a field's name
  }

  /// The events before a line over its limit, in the same chunk, still arrive.
  @Test func eventsBeforeAnOverlongLineInTheSameChunkArrive() async throws {
    let wire =
      try ServerSentEvent.json("partial", PartialScanResult(commonName: "Monstera")).encoded
      + Data("data: ".utf8) + Data(repeating: UInt8(ascii: "a"), count: 70_000)
    let transport = ScriptedTransport([
      .respond(
        TransportResponse(
          statusCode: 200, headers: ["Content-Type": "text/event-stream"], body: wire))
    ])
    let (updates, error) = await Self.identification(transport)
    #expect(updates == [.partial(PartialScanResult(commonName: "Monstera"))])
    let interrupted = try #require(error as? InterruptedScanError)
    #expect(interrupted.partial.commonName == "Monstera")
    #expect((interrupted.reason as? DexCloudError)?.kind == .payloadTooLarge)
  }

  /// An event stream is read up to a total: small events without end cannot grow what the
  /// reader holds.
  @Test func anEventStreamOverItsTotalIsRefused() throws {
    var reader = VisionStreamReader(task: .ask, maximumStreamBytes: 1_000)
    let delta = try ServerSentEvent.json("delta", ["content": "word "]).encoded
    var pieces = 0
    #expect(throws: DexCloudError.self) {
      for _ in 0..<1_000 { try reader.consume(delta) { _ in pieces += 1 } }
    }
    #expect(pieces > 0 && pieces * delta.count <= 1_000)
    #expect(VisionStreamReader.maximumStreamBytes == 8 << 20)
  }

  /// A refusal to a streamed request with a long body (a proxy's HTML page) keeps its status,
  /// is retried like any 503, and is not mistaken for a reply over its size.
  @Test func aLongRefusalKeepsItsStatus() async throws {
    let page = Data(repeating: UInt8(ascii: "<"), count: 200_000)
    let transport = ScriptedTransport([
      .respond(TransportResponse(statusCode: 503, headers: [:], body: page)),
      .respond(TransportResponse(statusCode: 503, headers: [:], body: page)),
      .respond(TransportResponse(statusCode: 503, headers: [:], body: page)),
      .respond(TransportResponse(statusCode: 503, headers: [:], body: page)),
    ])
    let failure = await Self.descriptionFailure(transport)
    #expect(failure?.kind == .http)
    #expect(failure?.statusCode == 503)
    #expect(transport.sentCount > 1)
  }

  /// An event's data with CR, LF or CR LF line ends reads back with LF; a line break in its
  /// name cannot start another field.
  @Test func encodedEventsCannotBreakTheirFraming() throws {
    let event = ServerSentEvent(event: "done\ndata: forged", data: "a\rb\r\nc\nd")
    var parser = ServerSentEventParser()
    let events = try parser.consume(event.encoded)
    #expect(events == [ServerSentEvent(event: "donedata: forged", data: "a\nb\nc\nd")])
  }

  /// A transport whose event stream sends one partial entry and then neither ends nor fails;
  /// `ended` is signalled when its reader lets go of the body.
  struct OpenStreamTransport: HTTPTransport {
    let ended = DispatchSemaphore(value: 0)
    func send(_ request: TransportRequest, timeout: Duration) async throws -> TransportResponse {
      throw DexCloudError(kind: .network, message: "only streams here")
    }
    func stream(
      _ request: TransportRequest, timeout: Duration
    ) async throws -> TransportStreamResponse {
      let first = try ServerSentEvent.json("partial", PartialScanResult(commonName: "Monstera"))
      let ended = self.ended
      return TransportStreamResponse(
        statusCode: 200, headers: ["Content-Type": "text/event-stream"],
        body: AsyncThrowingStream { continuation in
          continuation.onTermination = { _ in ended.signal() }
          continuation.yield(first.encoded)
        })
    }
  }

  /// A consumer that stops reading an open stream (its task cancelled) ends the request, and
  /// that is not logged as a failed request; what the reader makes of the cancellation is
  /// `cancelled`, for an identification with the fields so far.
  @Test func aCancelledStreamIsCancelledAndNotLoggedAsAFailure() async throws {
    let capture = LogCapture()
    let transport = OpenStreamTransport()
    let client = ApiClient(
      configuration: DexCloudConfiguration(
        baseURL: URL(string: "https://api.example.com/api/")!,
        bootstrapKey: SigningSecret("unit-bootstrap")!),
      transport: transport,
      tokenStore: InMemoryTokenStore(credential: ClientUnitTests.credential))
    let service = DexVisionService(client: client, logger: capture.logger())
    let started = AsyncStream.makeStream(of: Void.self)
    let reading = Task {
      for try await _ in service.streamIdentification(imageData: Data([0xFF]), categoryHint: nil) {
        started.continuation.yield()
      }
    }
    for await _ in started.stream { break }  // the first partial arrived
    reading.cancel()
    _ = await reading.result
    // The request's body is let go of, and nothing is logged as a failure after it.
    let letGo = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: transport.ended.wait(timeout: .now() + .seconds(60)))
      }
    }
    #expect(letGo == .success)
    try await Task.sleep(for: .milliseconds(500))
    #expect(!capture.lines.contains { $0.contains("failed") }, "\(capture.lines)")

    var reader = VisionStreamReader(task: .identify)
    try reader.consume(
      try ServerSentEvent.json("partial", PartialScanResult(commonName: "Monstera")).encoded
    ) { _ in }
    let interrupted = try #require(
      reader.interrupted(by: CancellationError()) as? InterruptedScanError)
    #expect(interrupted.partial.commonName == "Monstera")
    #expect((interrupted.reason as? DexCloudError)?.kind == .cancelled)
    let asking = VisionStreamReader(task: .ask)
    #expect((asking.interrupted(by: CancellationError()) as? DexCloudError)?.kind == .cancelled)
  }
}
