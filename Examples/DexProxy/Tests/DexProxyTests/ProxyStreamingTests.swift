import DexCloud
import DexModel
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// Streamed `/vision` end to end: DexCloud's real client and `DexVisionService` → dex-proxy → a
/// stub upstream that streams Server-Sent Events, all over loopback HTTP.
@Suite struct ProxyStreamingTests {
  static let monstera = try! ScanResult(jsonString: StubUpstream.cleanJSON)

  /// `text` in pieces of `size` characters.
  static func pieces(_ text: String, size: Int) -> [String] {
    var result: [String] = []
    var rest = Substring(text)
    while !rest.isEmpty {
      result.append(String(rest.prefix(size)))
      rest = rest.dropFirst(size)
    }
    return result
  }

  /// Waits until `condition` holds, polling, for at most `limit` (not a timing assertion: the
  /// condition is what is checked afterwards).
  static func eventually(
    within limit: Duration = .seconds(30), _ condition: () -> Bool
  ) async throws {
    let end = ContinuousClock.now + limit
    while !condition(), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
  }

  /// Expects `updates` to end with ``InterruptedScanError`` whose reason is the proxy's
  /// `error` event with `code`, holding `name` when given.
  static func expectInterrupted(
    _ updates: AsyncThrowingStream<IdentificationUpdate, any Error>, code: String,
    name: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await #expect(sourceLocation: sourceLocation) {
      for try await _ in updates {}
    } throws: { error in
      guard let interrupted = error as? InterruptedScanError,
        let reason = interrupted.reason as? DexCloudError
      else { return false }
      return reason.apiError?.code == code && interrupted.partial.commonName == name
    }
  }

  /// A streamed description whose model stalls after its first piece, read in a task of its
  /// own: returned once that piece has arrived, to be cancelled by the caller.
  @available(macOS 14, iOS 17, tvOS 17, *)
  static func openStalledDescription(_ proxy: ProxyHarness) async -> Task<Void, any Error> {
    proxy.upstream.enqueue(.stalledStream(["A bowl "]))
    let (firstPiece, arrived) = AsyncStream.makeStream(of: Void.self)
    let vision = proxy.vision()
    let reader = Task {
      for try await _ in vision.streamDescription(imageData: sampleImage, question: nil) {
        arrived.yield()
      }
    }
    for await _ in firstPiece { break }
    return reader
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func describeReturnsTheDescription() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(.content("A bowl of ramen with a soft-boiled egg."))
      let description = try await proxy.vision().describe(
        imageData: sampleImage, question: "What ingredients are in this dish?")
      #expect(description == VisionDescription(text: "A bowl of ramen with a soft-boiled egg."))
      let sent = try #require(proxy.upstream.received.last)
      #expect(sent.text?.contains("What ingredients are in this dish?") == true)
      #expect(sent.stream == nil)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func streamedDescriptionArrivesAsTheModelWritesIt() async throws {
    try await ProxyHarness.with(configure: { $0.servesMetrics = true }) { proxy in
      proxy.upstream.enqueue(
        .stream(["A bowl ", "of ramen ", "with a soft-boiled egg."], interval: .milliseconds(20)))
      var text = ""
      for try await piece in proxy.vision().streamDescription(
        imageData: sampleImage, question: nil)
      {
        text += piece
      }
      #expect(text == "A bowl of ramen with a soft-boiled egg.")
      #expect(proxy.upstream.received.last?.stream == true)
      // Logged and counted once, by the shared request log, when the stream has ended.
      try await Self.eventually { proxy.logs.handledRequests(route: "/vision") == 1 }
      #expect(proxy.logs.handledRequests(route: "/vision") == 1)
      #expect(proxy.logs.handledRequests(route: "/vision", status: 200, outcome: "ok") == 1)
      let scrape = try await proxy.scrape()
      #expect(scrape.requests(route: "/vision") == 1)
      #expect(scrape.requests(route: "/vision", status: "2xx", outcome: "ok") == 1)
    }
  }

  /// Each description piece is relayed as the model writes it, not when the reply ends: the
  /// model holds its stream open after two pieces, and the client has them meanwhile.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func descriptionPiecesArriveWhileTheModelIsStillWriting() async throws {
    try await ProxyHarness.with { proxy in
      let gate = UpstreamGate()
      proxy.upstream.enqueue(.gatedStream(["A bowl ", "of ramen "], gate: gate, then: ["too."]))
      let (pieces, sink) = AsyncStream.makeStream(of: String.self)
      let vision = proxy.vision()
      let reader = Task {
        defer { sink.finish() }
        for try await piece in vision.streamDescription(imageData: sampleImage, question: nil) {
          sink.yield(piece)
        }
      }
      // Bounds the wait should the pieces be held back (then what arrives is the whole text).
      let watchdog = Task {
        try await Task.sleep(for: .seconds(30))
        gate.open()
      }
      defer { watchdog.cancel() }
      var text = ""
      var iterator = pieces.makeAsyncIterator()
      while text != "A bowl of ramen ", let piece = await iterator.next() { text += piece }
      // Both pieces, while the model is still held.
      #expect(text == "A bowl of ramen ")
      #expect(!gate.isOpen)
      gate.open()
      while let piece = await iterator.next() { text += piece }
      try await reader.value
      #expect(text == "A bowl of ramen too.")
    }
  }

  /// A stream may last longer than the read timeout: the connection's deadline is for what the
  /// client sends, and does not run while the answer is being written.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aStreamOutlivesTheReadTimeout() async throws {
    try await ProxyHarness.with(configure: { $0.readTimeout = .seconds(1) }) { proxy in
      let pieces = (1...6).map { "part \($0). " }
      proxy.upstream.enqueue(.stream(pieces, interval: .milliseconds(400)))
      var text = ""
      for try await piece in proxy.vision().streamDescription(
        imageData: sampleImage, question: nil)
      {
        text += piece
      }
      #expect(text == pieces.joined())
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func streamedIdentificationGivesTheNameFirstThenTheWholeEntry() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(
        .stream(Self.pieces(StubUpstream.cleanJSON, size: 12), interval: .milliseconds(2)))
      var partials: [PartialScanResult] = []
      var final: ScanResult?
      for try await update in proxy.vision().streamIdentification(
        imageData: sampleImage, categoryHint: .plant)
      {
        switch update {
        case .partial(let partial): partials.append(partial)
        case .complete(let result): final = result
        }
      }
      #expect(final == Self.monstera)
      #expect(partials.first?.commonName == "Monstera Deliciosa")
      #expect(partials.first?.summary == nil)
      for (earlier, later) in zip(partials, partials.dropFirst()) {
        #expect(later.extends(earlier) && later != earlier)
      }
      #expect(partials.last.map { PartialScanResult(Self.monstera).extends($0) } == true)
    }
  }

  /// The typed wire: a whole identification carries `entry`, decoded with `JSONDecoder`.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aWholeIdentificationCarriesTheTypedEntry() async throws {
    try await ProxyHarness.with { proxy in
      let body = try JSONEncoder().encode(
        VisionRequest.identify(image: sampleImage.base64EncodedString(), categoryHint: nil))
      let reply = try await proxy.client().send(
        Endpoints.vision, body: body, as: VisionResponse.self)
      #expect(reply.entry == Self.monstera)
    }
  }

  /// For an identification only the entry's fields leave the proxy, while streaming too: what
  /// else the model wrote is never relayed.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aStreamedIdentificationRelaysOnlyTheEntrysFields() async throws {
    let injected =
      #"{"commonName": "Fern", "category": "plant", "leak": "SYSTEM PROMPT HERE"} "#
      + "and here is the rest of my instructions: SYSTEM PROMPT HERE"
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(.stream(Self.pieces(injected, size: 7)))
      let session = try await proxy.rawSession()
      let body = try JSONEncoder().encode(
        VisionRequest.identify(
          image: sampleImage.base64EncodedString(), categoryHint: nil, stream: true))
      let response = try await proxy.sendVision(
        body, secret: session.sessionSecret, session: session.sessionID)
      #expect(response.statusCode == 200)
      #expect(response.value(forHeader: "content-type")?.hasPrefix("text/event-stream") == true)
      var parser = ServerSentEventParser()
      let events = try parser.consume(response.body)
      // Only the entry's fields, typed: no event of the model's text, no other key.
      #expect(Set(events.compactMap(\.event)) == ["partial", "done"])
      let fields: Set<String> = [
        "commonName", "category", "scientificName", "summary", "facts", "rarity", "confidence",
      ]
      for event in events where event.event == "partial" {
        let object = try #require(
          try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
        #expect(Set(object.keys).isSubset(of: fields))
      }
      let done = try #require(events.last { $0.event == "done" })
      let reply = try JSONDecoder().decode(VisionResponse.self, from: Data(done.data.utf8))
      #expect(reply.entry?.commonName == "Fern")
      #expect(!reply.content.contains("SYSTEM PROMPT") && !reply.content.contains("leak"))
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aClientThatCancelsCancelsTheUpstreamCall() async throws {
    // The proxy's own upstream deadline far away: only the client's leaving ends the call.
    try await ProxyHarness.with { proxy in
      let reader = await Self.openStalledDescription(proxy)
      #expect(proxy.upstream.closedStreams == 0)
      reader.cancel()
      try await Self.eventually { proxy.upstream.closedStreams == 1 }
      #expect(proxy.upstream.closedStreams == 1)
      // One line for the request, written when the stream ended, with how it ended.
      try await Self.eventually { proxy.logs.handledRequests(route: "/vision") == 1 }
      #expect(
        proxy.logs.handledRequests(route: "/vision", status: 200, outcome: "client_closed") == 1)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aStreamThatNeverEndsIsStoppedByTheReplyCap() async throws {
    // Pieces of 500 characters, so that about 25 events reach the cap: 5-character ones needed
    // hundreds, as many sleeps, which a loaded machine stretches past a deadline.
    try await ProxyHarness.with(configure: { $0.upstream.maximumResponseBytes = 16 << 10 }) {
      proxy in
      proxy.upstream.enqueue(
        .endlessStream(String(repeating: "word ", count: 100), interval: .milliseconds(1)))
      let updates = proxy.vision().streamIdentification(imageData: sampleImage, categoryHint: nil)
      await Self.expectInterrupted(updates, code: "upstream_response_too_large")
      try await Self.eventually { proxy.upstream.closedStreams == 1 }
      #expect(proxy.upstream.closedStreams == 1)
    }
  }

  /// A description is cut at the proxy's limit while it streams, and the model call stops
  /// there.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aStreamedDescriptionStopsAtTheDescriptionLimit() async throws {
    // The harness's far upstream deadline and pieces of 150 characters (14 reach the limit,
    // the last one cut): on a loaded machine 400 one-word pieces took longer than the 5 s the
    // harness once had, and the deadline ended the stream before the limit did.
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(
        .endlessStream(String(repeating: "word ", count: 30), interval: .milliseconds(1)))
      var text = ""
      for try await piece in proxy.vision().streamDescription(
        imageData: sampleImage, question: nil)
      {
        text += piece
      }
      #expect(text.count == 2_000)
      try await Self.eventually { proxy.upstream.closedStreams == 1 }
      #expect(proxy.upstream.closedStreams == 1)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aClientDeadlineEndsTheStreamAndTheUpstreamCall() async throws {
    try await ProxyHarness.with { proxy in
      // The session first, so that the deadline covers the stream alone.
      let vision = proxy.vision()
      _ = try await vision.describe(imageData: sampleImage, question: nil)
      proxy.upstream.enqueue(.stalledStream([#"{"commonName": "Monstera Deliciosa", "cat"#]))
      // Long enough for the first piece (a signed request through the proxy to the stub and
      // back: milliseconds, but a loaded CI run can stall a task for over 10 s); the model never
      // sends a second, so the test waits it out.
      let deadline = ContinuousClock.now + .seconds(30)
      let updates = vision.streamIdentification(
        imageData: sampleImage, categoryHint: nil, deadline: deadline)
      var partial: PartialScanResult?
      await #expect {
        for try await update in updates {
          if case .partial(let value) = update { partial = value }
        }
      } throws: { error in
        guard let interrupted = error as? InterruptedScanError else { return false }
        return (interrupted.reason as? DexCloudError)?.kind == .timedOut
          && interrupted.partial.commonName == "Monstera Deliciosa"
      }
      #expect(partial?.commonName == "Monstera Deliciosa")
      // The proxy notices the client is gone at its next keep-alive and cancels the model call.
      try await Self.eventually { proxy.upstream.closedStreams == 1 }
      #expect(proxy.upstream.closedStreams == 1)
    }
  }

  /// A stream that stalls is ended by the proxy's own upstream deadline: the client gets the
  /// fields so far and `upstream_timeout`, and the model call is closed.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aStalledStreamIsStoppedByTheProxysDeadline() async throws {
    // Long enough for the first piece (milliseconds, but a loaded CI run can stall a task for
    // over 10 s: 1 s, then 3 s, left little room); the model never sends a second, so the test
    // waits it out.
    try await ProxyHarness.with(configure: { $0.upstream.timeout = .seconds(30) }) { proxy in
      proxy.upstream.enqueue(.stalledStream([#"{"commonName": "Monstera Deliciosa", "cat"#]))
      let updates = proxy.vision().streamIdentification(imageData: sampleImage, categoryHint: nil)
      await Self.expectInterrupted(updates, code: "upstream_timeout", name: "Monstera Deliciosa")
      try await Self.eventually { proxy.upstream.closedStreams == 1 }
      #expect(proxy.upstream.closedStreams == 1)
    }
  }

  /// Budgets are charged once per request, streamed or not, before the model is called, and
  /// given back when the upstream fails before its answer begins: with a quota of 2, a failed
  /// stream, a streamed identification and a whole description leave none for a fourth call.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func budgetsAreChargedOncePerRequestStreamedOrNot() async throws {
    try await ProxyHarness.with(configure: { $0.dailyQuota = 2 }) { proxy in
      proxy.upstream.enqueue(
        .status(500), .stream(Self.pieces(StubUpstream.cleanJSON, size: 9)), .content("Ramen."))
      // One attempt each: a retried 502 would be a second request.
      let vision = DexVisionService(
        client: proxy.client(maximumAttempts: 1), logger: proxy.logs.logger("vision"))
      await #expect {
        for try await _ in vision.streamDescription(imageData: sampleImage, question: "a") {}
      } throws: { error in
        (error as? DexCloudError)?.apiError?.code == "upstream_error"
      }
      var entry: ScanResult?
      for try await update in vision.streamIdentification(imageData: sampleImage, categoryHint: nil)
      {
        if case .complete(let result) = update { entry = result }
      }
      #expect(entry == Self.monstera)
      let description = try await vision.describe(imageData: sampleImage, question: "b")
      #expect(description.text == "Ramen.")
      await #expect {
        for try await _ in vision.streamDescription(imageData: sampleImage, question: "c") {}
      } throws: { error in
        (error as? DexCloudError)?.apiError?.code == "quota_exceeded"
      }
      #expect(proxy.upstream.received.count == 3)
    }
  }

  /// A stream holds its in-flight slot until it ends, not only while its handler runs: with one
  /// slot, a second request is busy while a stream is open, and is answered once it closed.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aStreamHoldsItsSlotUntilItEnds() async throws {
    try await ProxyHarness.with(configure: { $0.maximumInFlight = 1 }) { proxy in
      let reader = await Self.openStalledDescription(proxy)
      let session = try await proxy.rawSession()
      let busy = try await proxy.sendVision(
        try visionBody("while streaming"), secret: session.sessionSecret,
        session: session.sessionID)
      #expect(busy.statusCode == 503)
      #expect(errorCode(busy.body) == "busy")
      reader.cancel()
      try await Self.eventually { proxy.upstream.closedStreams == 1 }
      var after = busy
      for attempt in 0..<500 where after.statusCode == 503 {
        try await Task.sleep(for: .milliseconds(20))
        after = try await proxy.sendVision(
          try visionBody("after \(attempt)"), secret: session.sessionSecret,
          session: session.sessionID)
      }
      #expect(after.statusCode == 200)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aReplayedStreamedRequestIsRefused() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(.stream(["Ramen."]))
      let session = try await proxy.rawSession()
      let body = try JSONEncoder().encode(
        VisionRequest.ask(image: sampleImage.base64EncodedString(), question: "r", stream: true))
      let (first, replay) = try await proxy.sendVisionAndReplay(
        body, secret: session.sessionSecret, session: session.sessionID)
      #expect(first.statusCode == 200)
      #expect(replay.statusCode == 401)
      #expect(errorCode(replay.body) == "replayed_request")
      #expect(proxy.upstream.received.count == 1)
    }
  }
}
