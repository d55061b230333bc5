import DexTestSupport
import Foundation
import Testing

@testable import DexCloud

/// How long the client keeps a session, and how long a caller with a deadline waits for one.
@Suite("ApiClient sessions (scripted transport)")
struct ClientSessionLifetimeTests {
  /// A settable clock for the client's `now`.
  final class ManualClock: Sendable {
    private let date = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }
  }

  /// A `/auth_token` reply for a session of `lifetime` seconds.
  static func authReply(lifetime: Int64, now: Date) throws -> TransportResponse {
    let token = AuthTokenResponse(
      sessionID: "dx1.k1.YQ.\(Int64(now.timeIntervalSince1970) + lifetime).nonce.tag",
      sessionSecret: try #require(SigningSecret("short-lived-session-secret")),
      expiresAt: Int64(now.timeIntervalSince1970) + lifetime, expiresIn: lifetime)
    return TransportResponse(statusCode: 200, headers: [:], body: try JSONEncoder().encode(token))
  }

  static func client(_ transport: ScriptedTransport, clock: ManualClock) -> ApiClient {
    ApiClient(
      configuration: DexCloudConfiguration(
        baseURL: URL(string: "https://api.example.com/api/")!,
        bootstrapKey: SigningSecret("unit-bootstrap")!, retryPolicy: .none),
      transport: transport, tokenStore: InMemoryTokenStore(), sleep: { _ in },
      now: { clock.now }, random: { 1 })
  }

  /// The paths the transport was asked for, in order.
  static func paths(_ transport: ScriptedTransport) -> [String] {
    transport.sent.map { $0.url.path }
  }

  @Test("A session shorter-lived than twice the refresh margin is kept for half its life")
  func shortSessionsAreKeptForHalfTheirLife() async throws {
    let clock = ManualClock()
    // 30 s sessions against the default 60 s margin.
    let transport = ScriptedTransport([
      .respond(try Self.authReply(lifetime: 30, now: clock.now)),
      .respond(ScriptedTransport.ok), .respond(ScriptedTransport.ok),
      .respond(try Self.authReply(lifetime: 30, now: clock.now + 16)),
      .respond(ScriptedTransport.ok),
    ])
    let client = Self.client(transport, clock: clock)
    _ = try await client.send(Endpoints.vision, body: Data())
    clock.advance(by: 14)
    _ = try await client.send(Endpoints.vision, body: Data())
    #expect(
      Self.paths(transport) == ["/api/auth_token", "/api/vision", "/api/vision"],
      "one session for both calls, 14 s apart")
    clock.advance(by: 2)  // 16 s: past half of the 30 s life
    _ = try await client.send(Endpoints.vision, body: Data())
    #expect(Self.paths(transport).suffix(2) == ["/api/auth_token", "/api/vision"])
    #expect(transport.sentCount == 5)
  }

  @Test("A long-lived session is still refreshed the margin before it expires")
  func longSessionsKeepTheMargin() throws {
    let issued = Date(timeIntervalSince1970: 1_800_000_000)
    let credential = SessionCredential(
      sessionID: "s", secret: try #require(SigningSecret("unit-session-secret")),
      expiresAt: issued + 3600, issuedAt: issued)
    #expect(!credential.needsRefresh(at: issued + 3539, margin: .seconds(60)))
    #expect(credential.needsRefresh(at: issued + 3540, margin: .seconds(60)))
    // Saved before `issuedAt` was recorded: the margin alone.
    let old = SessionCredential(
      sessionID: "s", secret: credential.secret, expiresAt: issued + 30)
    #expect(old.needsRefresh(at: issued, margin: .seconds(60)))
    let decoded = try JSONDecoder().decode(
      SessionCredential.self,
      from: Data(#"{"sessionID":"s","secret":"unit-session-secret","expiresAt":0}"#.utf8))
    #expect(decoded.issuedAt == nil)
  }

  @Test("A caller with a deadline stops waiting for a stalled /auth_token at that deadline")
  func sessionRefreshEndsAtTheCallersDeadline() async throws {
    let transport = ScriptedTransport([.stall(.seconds(90))])
    let client = Self.client(transport, clock: ManualClock())
    // A first caller without a deadline starts the refresh, which stalls in /auth_token...
    let first = Task { try await client.send(Endpoints.vision, body: Data()) }
    defer { first.cancel() }
    while transport.sentCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
    // ...and a caller with one joins it: answered at its deadline, not after the stall.
    let started = ContinuousClock.now
    let error = await expectedError {
      _ = try await client.send(Endpoints.vision, body: Data(), deadline: .now + .seconds(1))
    }
    let elapsed = ContinuousClock.now - started
    #expect(error?.kind == .timedOut)
    #expect(elapsed < .seconds(45), "waited \(elapsed) for a refresh stalled 90 s")
    #expect(Self.paths(transport) == ["/api/auth_token"], "no vision request without a session")
  }

  @Test("The refresh after a 401 also ends at the caller's deadline")
  func refreshAfterA401EndsAtTheDeadline() async throws {
    let transport = ScriptedTransport([
      .respond(TransportResponse(statusCode: 401, headers: [:], body: Data())),
      .stall(.seconds(90)),
    ])
    let client = ClientUnitTests.client(transport, policy: .none)
    _ = try await client.currentCredential()  // the stored session, loaded before the clock starts
    let started = ContinuousClock.now
    let error = await expectedError {
      _ = try await client.send(
        Endpoints.vision, body: Data(), deadline: .now + .seconds(2))
    }
    let elapsed = ContinuousClock.now - started
    #expect(error?.kind == .timedOut)
    #expect(elapsed < .seconds(45), "waited \(elapsed) for a refresh stalled 90 s")
    #expect(Self.paths(transport).first == "/api/vision", "the 401 came first")
  }
}
