import DexExamplesTestSupport
import DexProxyTesting
import Foundation
import Testing

#if os(Linux) || os(macOS)

  /// `dex ask` and `dex scan` print while the model is still writing: the stub model holds its
  /// stream open after the first pieces (an ``UpstreamGate``), the test reads the child's
  /// standard output as it comes and sees the first piece (the answer's start, the entry's
  /// name) while the stream is held, and only then lets the model finish.
  @Suite("dex prints as the reply streams", .serialized)
  struct StreamedOutputTests {
    /// Runs `dex arguments` against `backend`, offline of the machine's own settings, with its
    /// standard output handed to `body` as it is written; what `body` read, and how `dex` ended.
    /// `dex` is killed if it runs past two minutes.
    static func withDex(
      _ arguments: [String], backend: URL,
      _ body: @escaping @Sendable (inout ChildProcess.Reader) async throws -> Void
    ) async throws -> (text: String, status: Int32, error: String) {
      let executable = try #require(
        BuiltExecutable.named("dex"),
        "dex not built next to the tests: \(BuiltExecutable.folders)")
      let home = FileManager.default.temporaryDirectory
        .appendingPathComponent("dex-streamed-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: home) }
      var environment = ProcessInfo.processInfo.environment
      environment["DEX_CLOUD_BASE_URL"] = backend.absoluteString
      environment["DEX_CLOUD_BOOTSTRAP_KEY"] = ProxyHarness.bootstrapKeyText
      environment["DEX_STORE"] = nil
      environment["HOME"] = home.path  // no stray ~/.config/dex/config.json
      let run = try await ChildProcess.withOutput(
        of: executable, arguments: arguments, environment: environment
      ) { reader in
        try await body(&reader)
        try await reader.readToEnd()
        return reader.text
      }
      return (
        run.result, run.outcome.status, String(decoding: run.outcome.standardError, as: UTF8.self)
      )
    }

    static let cat = Bundle.module.url(
      forResource: "cat", withExtension: "jpg", subdirectory: "Photos")

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func askPrintsTheFirstPieceWhileTheModelIsStillWriting() async throws {
      let photo = try #require(Self.cat).path
      try await ProxyHarness.with { proxy in
        let gate = UpstreamGate()
        // Never left closed, should the test stop early: the stream would hold the proxy.
        defer { gate.open() }
        proxy.upstream.enqueue(
          .gatedStream(["A tabby ", "cat "], gate: gate, then: ["on a ", "sofa."]))
        let run = try await Self.withDex(
          ["ask", "--in-process-decoding", photo, "What is it?"], backend: proxy.baseURL
        ) { dex in
          try await dex.read { $0.contains("A tabby") }
          // The model is still held: the rest has not been written, and dex has not ended.
          #expect(dex.text.hasPrefix("A tabby"))
          #expect(!dex.text.contains("sofa"))
          #expect(!gate.isOpen && dex.isRunning)
          gate.open()
        }
        #expect(run.status == 0, "\(run.error)")
        #expect(run.text == "A tabby cat on a sofa.\n")
        #expect(proxy.upstream.received.last?.stream == true)
      }
    }

    /// The issue's "`dex scan` prints the entry's name on its own line as soon as it is known,
    /// then the card", through the real proxy streaming the identification.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func scanPrintsTheNameWhileTheModelIsStillWritingThenTheCard() async throws {
      let photo = try #require(Self.cat).path
      let json = StubUpstream.cleanJSON
      let cut = try #require(json.range(of: #""category""#)).lowerBound
      try await ProxyHarness.with { proxy in
        let gate = UpstreamGate()
        // Never left closed, should the test stop early: the stream would hold the proxy.
        defer { gate.open() }
        proxy.upstream.enqueue(
          .gatedStream([String(json[..<cut])], gate: gate, then: [String(json[cut...])]))
        let run = try await Self.withDex(
          ["scan", "--in-process-decoding", "--dry-run", photo], backend: proxy.baseURL
        ) { dex in
          try await dex.read { $0.contains("Monstera Deliciosa\n") }
          // The name, on its own line, while the model is held before the entry's other fields.
          let lines = dex.text.split(separator: "\n", omittingEmptySubsequences: false)
          #expect(lines.contains("  Monstera Deliciosa"), "\(dex.text)")
          #expect(!dex.text.contains("Monstera deliciosa"), "\(dex.text)")
          #expect(!gate.isOpen && dex.isRunning)
          gate.open()
        }
        #expect(run.status == 0, "\(run.error)")
        let text = run.text
        // Then the card, after the name's line.
        let name = try #require(text.range(of: "  Monstera Deliciosa\n"))
        let card = try #require(text.range(of: "Monstera deliciosa"))
        #expect(name.upperBound <= card.lowerBound)
        #expect(proxy.upstream.received.last?.stream == true)
      }
    }
  }
#endif
