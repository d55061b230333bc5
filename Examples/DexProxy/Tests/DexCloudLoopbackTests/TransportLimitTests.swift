import DexCloudServer
import DexExamplesTestSupport
import Foundation
import Testing

@testable import DexCloud

/// `URLSessionTransport`'s own session against a real server on 127.0.0.1: a body past the limit
/// is cut off while it arrives, and a redirect is not followed.
@Suite("URLSessionTransport limits over real HTTP")
struct TransportLimitTests {
  @Test(
    "A body past the limit is refused while it arrives, not after 64 MiB",
    arguments: ["huge", "declared"])
  func aHugeBodyIsCutOff(_ route: String) async throws {
    try await TestServer.with { server in
      let transport = URLSessionTransport(maximumResponseBytes: 1 << 20)
      let request = TransportRequest(
        method: "GET", url: server.baseURL.appendingPathComponent(route), headers: [:],
        body: Data())
      do {
        _ = try await transport.send(request, timeout: .seconds(30))
        Issue.record("a 64 MiB body was accepted")
      } catch let error as DexCloudError {
        #expect(error.kind == .payloadTooLarge)
        #expect(error.statusCode == 200)
      }
      // The server stopped being able to write long before the end (socket buffers hold a few
      // megabytes); reading it all, as URLSession's completion handler does, takes all 64.
      try await Task.sleep(for: .milliseconds(500))
      #expect(server.state.hugeBytesSent < 32 << 20, "\(server.state.hugeBytesSent) bytes")
    }
  }

  @Test("An oversized response is not retried")
  func anOversizedResponseIsNotRetried() async throws {
    let error = DexCloudError(kind: .payloadTooLarge, message: "over", statusCode: 200)
    let transport = ScriptedFailingTransport(error: error)
    let client = ApiClient(
      configuration: DexCloudConfiguration(
        baseURL: URL(string: "http://127.0.0.1:9/")!, bootstrapKey: SigningSecret("k-bootstrap")!,
        allowsInsecureHTTP: true),
      transport: transport, tokenStore: InMemoryTokenStore())
    await #expect(throws: DexCloudError.self) {
      _ = try await client.send(Endpoints.authToken, body: Data("{}".utf8))
    }
    #expect(transport.calls == 1)
  }

  @Test("A redirect is answered, not followed")
  func aRedirectIsNotFollowed() async throws {
    try await TestServer.with { server in
      let request = TransportRequest(
        method: "GET", url: server.baseURL.appendingPathComponent("redirect"),
        headers: ["x-dex-session": "dx1.k1.secret-bearing"], body: Data())
      let response = try await URLSessionTransport().send(request, timeout: .seconds(10))
      #expect(response.statusCode == 307)
      #expect(server.state.count("/landing") == 0)
    }
  }
}

/// A transport that fails every call with `error`, counting the calls.
final class ScriptedFailingTransport: HTTPTransport, @unchecked Sendable {
  let error: DexCloudError
  private let lock = NSLock()
  private var count = 0
  init(error: DexCloudError) { self.error = error }
  var calls: Int { lock.withLock { count } }
  func send(_ request: TransportRequest, timeout: Duration) async throws -> TransportResponse {
    lock.withLock { count += 1 }
    throw error
  }
}
