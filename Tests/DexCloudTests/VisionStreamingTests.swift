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

  @Test func eventsAreSplitWhateverTheChunks() throws {
    let wire = Data(
      "event: delta\ndata: {\"content\":\"a\"}\n\r\n: keep-alive\n\nevent: done\r\ndata: x\ndata: y\n\n"
        .utf8)
    for size in 1...wire.count {
      var parser = ServerSentEventParser()
      var events: [ServerSentEvent] = []
      var index = 0
      while index < wire.count {
        events += try parser.consume(wire[index..<min(index + size, wire.count)])
        index += size
      }
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
}
