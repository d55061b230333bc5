import DexExamplesTestSupport
import DexProxyTesting
import Foundation
import Testing

/// `dex ask` as a user runs it: the built executable against the real proxy on 127.0.0.1, in
/// front of a stub model that streams.
@Suite("dex ask", .serialized)
struct AskCommandTests {
  /// Runs `dex ask` with `arguments` against `backend` (none: offline), decoding in process
  /// and with no configuration from the machine.
  static func ask(
    _ arguments: [String], backend: URL?
  ) async throws -> (status: Int32, output: String, error: String) {
    var environment = ProcessInfo.processInfo.environment
    environment["DEX_CLOUD_BASE_URL"] = backend?.absoluteString
    environment["DEX_CLOUD_BOOTSTRAP_KEY"] =
      backend == nil ? nil : ProxyHarness.bootstrapKeyText
    let home = FileManager.default.temporaryDirectory
      .appendingPathComponent("dex-ask-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: home) }
    environment["HOME"] = home.path  // no stray ~/.config/dex/config.json
    let outcome = try await ChildProcess.run(
      try #require(
        BuiltExecutable.named("dex"), "dex not built next to the tests: \(BuiltExecutable.folders)"),
      arguments: ["ask", "--in-process-decoding"] + arguments,
      environment: environment)
    return (
      outcome.status, String(decoding: outcome.standardOutput, as: UTF8.self),
      String(decoding: outcome.standardError, as: UTF8.self)
    )
  }

  static var photo: String {
    get throws {
      try #require(
        Bundle.module.url(forResource: "cat", withExtension: "jpg", subdirectory: "Photos")
      )
      .path
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func printsTheStreamedAnswerToTheQuestion() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(
        .stream(["A tabby ", "cat on a ", "sofa."], interval: .milliseconds(20)))
      let run = try await Self.ask(
        [try Self.photo, "What animal is this?"], backend: proxy.baseURL)
      #expect(run.status == 0, "\(run.error)")
      #expect(run.output == "A tabby cat on a sofa.\n")
      let sent = try #require(proxy.upstream.received.last)
      #expect(sent.stream == true)
      #expect(sent.text?.contains("What animal is this?") == true)
      #expect(sent.imageURL?.hasPrefix("data:image/jpeg;base64,") == true)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func theModelsControlCharactersNeverReachTheTerminal() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(.stream(["Line one\n", "\u{1B}]0;owned\u{07}line two"]))
      let run = try await Self.ask([try Self.photo], backend: proxy.baseURL)
      #expect(run.status == 0, "\(run.error)")
      #expect(run.output.hasPrefix("Line one\n"))
      #expect(!run.output.contains("\u{1B}"))
      #expect(proxy.upstream.received.last?.text == nil)
    }
  }

  @Test func withoutABackendItSaysSoAndExits64() async throws {
    let run = try await Self.ask([try Self.photo, "What is it?"], backend: nil)
    #expect(run.status == 64)
    #expect(run.error.contains("dex ask needs a backend"))
    #expect(run.output.isEmpty)
  }

  @Test func anUnreachableBackendIsAClearError() async throws {
    let run = try await Self.ask([try Self.photo], backend: URL(string: "http://127.0.0.1:9")!)
    #expect(run.status == 69)
    #expect(run.error.contains("cat.jpg"))
    #expect(run.output.isEmpty)
  }

  @Test func helpNamesThePhotoAndTheQuestion() async throws {
    let run = try await Self.ask(["--help"], backend: nil)
    #expect(run.status == 0)
    #expect(run.output.contains("<photo> [<question>]"))
    #expect(run.output.contains("as it"))
  }
}
