import DexExamplesTestSupport
import Foundation
import Testing

@testable import DexCloud

/// Runs every interesting path with captured logs, then searches every log line and every error
/// description for the bootstrap key, session ids, session secrets and signatures.
@Suite("No secret reaches a log line or an error")
struct SecretHygieneTests {
  @Test("Bootstrap, refresh, retries, skew and errors leak nothing")
  func nothingLeaks() async throws {
    try await TestServer.with { server in
      let logs = LogCapture()
      let store = InMemoryTokenStore()
      let clock = MovableClock(offset: -2000)
      let client = makeClient(server, logs: logs, store: store, clock: clock)
      let vision = DexVisionService(client: client, logger: logs.logger("vision"))
      var errors: [any Error] = []
      var secrets: [String] = [TestServer.bootstrapKey.value]

      _ = try await client.send(Endpoints.vision, body: Data("{}".utf8), as: VisionResponse.self)
      let first = try #require(try await store.loadCredential())
      secrets += [first.secret.value, first.sessionID]
      server.state.revoke(first.sessionID)
      server.state.enqueue([.status(429, retryAfter: "0"), .status(503)], for: "/vision")
      _ = try await client.send(Endpoints.vision, body: Data("{}".utf8), as: VisionResponse.self)
      let second = try #require(try await store.loadCredential())
      secrets += [second.secret.value, second.sessionID]
      server.state.enqueue(
        [.status(400, body: #"{"error":{"message":"bad key \#(second.secret.value) sig"}}"#)],
        for: "/vision")
      do { _ = try await vision.identify(imageData: Data([1, 2, 3]), categoryHint: .fish) } catch {
        errors.append(error)
      }
      do { _ = try await vision.identify(imageData: Data([1, 2, 3]), categoryHint: nil) } catch {
        errors.append(error)
      }
      let wrong = makeClient(
        server, bootstrapKey: SigningSecret("wrong-bootstrap-key-99")!, logs: logs)
      do { _ = try await wrong.send(Endpoints.vision, body: Data()) } catch { errors.append(error) }
      secrets.append("wrong-bootstrap-key-99")
      secrets += server.state.requests.compactMap(\.signature)

      let lines = logs.lines + server.logs.lines
      #expect(lines.count > 10, "the scenario must have produced logs to inspect")
      #expect(server.logs.lines.contains { $0.contains("reason=invalid_signature") })
      #expect(errors.count == 3)
      let texts =
        lines + errors.map { "\($0) \($0.localizedDescription) \(String(reflecting: $0))" }
      // Report only indices on failure, so a leak is not itself printed.
      for (secretIndex, secret) in secrets.enumerated() {
        for (textIndex, text) in texts.enumerated() where text.contains(secret) {
          Issue.record("secret #\(secretIndex) leaked into log/error text #\(textIndex)")
        }
      }
    }
  }
}
