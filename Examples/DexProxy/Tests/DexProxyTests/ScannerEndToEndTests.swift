import DexKit
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// The whole product over real loopback HTTP: `DexScanner` with the real downscaler and
/// classifier → `DexVisionService` (signed `ApiClient`) → `dex-proxy` → a stub OpenAI-compatible
/// upstream, saving into a real `DexStore` in a temporary directory.
@Suite("DexScanner end to end through dex-proxy")
struct ScannerEndToEndTests {
  static func photo(_ name: String) throws -> Data {
    let url = try #require(
      Bundle.module.url(forResource: name, withExtension: "jpg", subdirectory: "Photos"))
    return try Data(contentsOf: url)
  }

  static func withStore<T>(_ body: (DexStore) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("dex-e2e-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try DexStore(configuration: .init(directory: directory))
    return try await body(store)
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func happyPathSavesAFullEntryAndTheHintReachesThePrompt() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(
        .content(
          """
          ```json
          {"commonName": "Tabby Cat", "category": "animal", "scientificName": "Felis catus",
           "summary": "A striped domestic cat.", "facts": ["Purrs", "Naps 15 hours a day"],
           "rarity": "common", "confidence": "96%"}
          ```
          """))
      let scanner = DexScanner(visionService: proxy.vision())
      let final = await scanner.run(try Self.photo("cat"))
      #expect(final.phase == .result)
      #expect(!final.isOffline)
      #expect(final.result?.commonName == "Tabby Cat")
      #expect(final.result?.confidence == 0.96)

      let prompt = try #require(proxy.upstream.received.last?.instructions)
      #expect(prompt.contains("guessed the category \"Animal\""), "the local guess is the hint")
      let sentImage = try #require(proxy.upstream.received.last?.imageURL)
      let jpeg = try #require(final.imageData)
      #expect(sentImage == "data:image/jpeg;base64,\(jpeg.base64EncodedString())", "encoded once")

      try await Self.withStore { store in
        let entry = try #require(final.makeEntry())
        try await store.insert(entry, image: jpeg)
        let saved = try #require(try await store.entry(id: entry.id))
        #expect(saved.facts == ["Purrs", "Naps 15 hours a day"])
        #expect(saved.localGuessLabel == final.localGuess?.label)
        #expect(try await store.imageData(for: entry.id) == jpeg)
      }
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test(arguments: [UpstreamReply.status(500), .status(429), .refusal("I can't help with that.")])
  func upstreamFailuresYieldTheOfflineEntry(reply: UpstreamReply) async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.setFallback(reply)
      let final = await DexScanner(visionService: proxy.vision()).run(try Self.photo("fruit"))
      #expect(final.phase == .result)
      #expect(final.isOffline)
      #expect(final.cloudError != nil)
      let guess = try #require(final.localGuess)
      #expect(final.result == .offlineFallback(for: guess))
      #expect(guess.category == .food)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aSlowUpstreamEndsTheScanAtTheTimeout() async throws {
    // The model holds its reply until the test opens the gate, after the scan (a watchdog opens
    // it after 2 minutes, so that a scan that waits for the reply fails instead of hanging): no
    // speed of the machine lets the reply come first. The proxy's own deadline is farther still.
    try await ProxyHarness.with(configure: { $0.upstream.timeout = .seconds(300) }) { proxy in
      // The session first: the client fetches it in a task of its own that the scan's deadline
      // does not end, and it must not be still connecting when the proxy stops.
      let vision = proxy.vision()
      _ = try await vision.describe(imageData: try Self.photo("cat"), question: nil)
      let gate = UpstreamGate()
      proxy.upstream.setFallback(.gatedStream([], gate: gate, then: [StubUpstream.cleanJSON]))
      let watchdog = Task {
        try await Task.sleep(for: .seconds(120))
        gate.open()
      }
      defer {
        watchdog.cancel()
        gate.open()
      }
      let scanner = DexScanner(
        visionService: vision, configuration: .init(cloudTimeout: .milliseconds(500)))
      // Timed from the local guess on, so that a loaded CI machine running the (debug-built)
      // encode and classifier slowly cannot fail it: only the cloud pass is measured.
      let clock = ContinuousClock()
      var guessedAt: ContinuousClock.Instant?
      var final: DexScanState?
      for await state in scanner.scan(try Self.photo("cat")) {
        if guessedAt == nil, state.localGuess != nil { guessedAt = clock.now }
        final = state
      }
      let cloudPass = clock.now - (try #require(guessedAt))
      // Answered while the model still held its reply, at the scan's own deadline. (Whether
      // the request had reached the model within the 0.5 s is not asserted: on a loaded CI
      // machine it had not, and the scan rightly timed out before it did.)
      #expect(!gate.isOpen, "the scan waited for the model's reply")
      // Under the client's own 45 s request timeout, which would end a scan that ignored its
      // deadline while the model still held its reply.
      #expect(
        cloudPass < .seconds(30), "the cloud pass ends at its 0.5 s timeout, not with the reply")
      #expect(final?.phase == .result)
      #expect(final?.isOffline == true)
      #expect(final?.cloudError == .timedOut)
    }
  }
}
