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
    /// `dex` run with its standard output on a pipe read as it is written.
    final class RunningDex {
      let process: Process
      let output: Pipe
      let errorFile: URL
      let home: URL
      let exit: Task<Int32, Never>
      /// Kills `dex` still running after two minutes, so that a read waiting for its output
      /// ends (the pipe closes) instead of hanging the test.
      let watchdog: Task<Void, Never>

      /// Starts `dex arguments` against `backend`, offline of the machine's own settings.
      init(_ arguments: [String], backend: URL) throws {
        let executable = try #require(
          BuiltExecutable.named("dex"),
          "dex not built next to the tests: \(BuiltExecutable.folders)")
        let home = FileManager.default.temporaryDirectory
          .appendingPathComponent("dex-streamed-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let errorFile = home.appendingPathComponent("stderr")
        try Data().write(to: errorFile)
        var environment = ProcessInfo.processInfo.environment
        environment["DEX_CLOUD_BASE_URL"] = backend.absoluteString
        environment["DEX_CLOUD_BOOTSTRAP_KEY"] = ProxyHarness.bootstrapKeyText
        environment["DEX_STORE"] = nil
        environment["HOME"] = home.path  // no stray ~/.config/dex/config.json
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        let (ended, ending) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
          ending.yield(process.terminationStatus)
          ending.finish()
        }
        self.process = process
        self.output = output
        self.errorFile = errorFile
        self.home = home
        exit = Task {
          for await status in ended { return status }
          return -1
        }
        try process.run()
        watchdog = Task { [process] in
          guard (try? await Task.sleep(for: .seconds(120))) != nil, process.isRunning else {
            return
          }
          kill(process.processIdentifier, SIGKILL)
        }
      }

      /// Reads standard output, off the cooperative pool, until what was read so far satisfies
      /// `enough` or the output ends; everything read so far.
      func read(
        into text: inout String, until enough: @escaping @Sendable (String) -> Bool
      )
        async throws
      {
        let handle = output.fileHandleForReading
        while !enough(text) {
          let data = try await offThePool { handle.availableData }
          if data.isEmpty { return }
          text += String(decoding: data, as: UTF8.self)
        }
      }

      /// Waits for the exit; the status and standard error.
      func finish() async throws -> (status: Int32, error: String) {
        let status = await exit.value
        watchdog.cancel()
        let error = String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
        try? FileManager.default.removeItem(at: home)
        return (status, error)
      }
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
        let dex = try RunningDex(
          ["ask", "--in-process-decoding", photo, "What is it?"], backend: proxy.baseURL)
        var text = ""
        try await dex.read(into: &text) { $0.contains("A tabby") }
        // The model is still held: the rest has not been written, and dex has not ended.
        #expect(text.hasPrefix("A tabby"))
        #expect(!text.contains("sofa"))
        #expect(!gate.isOpen && dex.process.isRunning)
        gate.open()
        try await dex.read(into: &text) { _ in false }
        let run = try await dex.finish()
        #expect(run.status == 0, "\(run.error)")
        #expect(text == "A tabby cat on a sofa.\n")
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
        let dex = try RunningDex(
          ["scan", "--in-process-decoding", "--dry-run", photo], backend: proxy.baseURL)
        var text = ""
        try await dex.read(into: &text) { $0.contains("Monstera Deliciosa\n") }
        // The name, on its own line, while the model is held before the entry's other fields.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("  Monstera Deliciosa"), "\(text)")
        #expect(!text.contains("Monstera deliciosa"), "\(text)")
        #expect(!gate.isOpen && dex.process.isRunning)
        gate.open()
        try await dex.read(into: &text) { _ in false }
        let run = try await dex.finish()
        #expect(run.status == 0, "\(run.error)")
        // Then the card, after the name's line.
        let name = try #require(text.range(of: "  Monstera Deliciosa\n"))
        let card = try #require(text.range(of: "Monstera deliciosa"))
        #expect(name.upperBound <= card.lowerBound)
        #expect(proxy.upstream.received.last?.stream == true)
      }
    }
  }
#endif
