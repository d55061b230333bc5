import DexCloudServer
import DexExamplesTestSupport
import Foundation
import Testing

@testable import DexCloud

/// The client against a real Hummingbird server on 127.0.0.1 that verifies every request with
/// DexCloud's own ``RequestAuthenticator``.
@Suite("ApiClient over real HTTP")
struct ApiClientTests {
  static let body = Data(#"{"image":"aGVsbG8=","prompt":"What is it?"}"#.utf8)

  func vision(_ client: ApiClient, body: Data = body) async throws -> VisionResponse {
    let response = try await client.send(Endpoints.vision, body: body)
    return try JSONDecoder().decode(VisionResponse.self, from: response.body)
  }

  @Test("Bootstrap: one /auth_token, then session-signed requests reuse the session")
  func bootstrap() async throws {
    try await TestServer.with { server in
      let store = InMemoryTokenStore()
      let client = makeClient(server, store: store)
      let first = try await vision(client)
      #expect(first.content == "A tabby cat on a sofa.")
      _ = try await vision(client)
      #expect(server.state.count("/auth_token") == 1)
      #expect(server.state.count("/vision") == 2)
      let stored = try #require(try await store.loadCredential())
      let requests = server.state.requests
      let auth = try #require(requests.first { $0.path == "/auth_token" })
      #expect(auth.sessionID == nil)
      let visions = requests.filter { $0.path == "/vision" }
      #expect(visions.allSatisfy { $0.sessionID == stored.sessionID })
      #expect(
        Set(visions.compactMap(\.signature)).count == 2,
        "identical requests get distinct signatures")
      #expect(stored.sessionID.hasPrefix("dx1.k1."))
    }
  }

  @Test("A stored session is used on the next launch without /auth_token")
  func storedSession() async throws {
    try await TestServer.with { server in
      let store = InMemoryTokenStore()
      _ = try await vision(makeClient(server, store: store))
      _ = try await vision(makeClient(server, store: store))
      #expect(server.state.count("/auth_token") == 1)
    }
  }

  @Test("A 401 refreshes the session once and retries")
  func refreshOn401() async throws {
    try await TestServer.with { server in
      let store = InMemoryTokenStore()
      let client = makeClient(server, store: store)
      _ = try await vision(client)
      let old = try #require(try await store.loadCredential())
      server.state.revoke(old.sessionID)
      #expect(try await vision(client).role == "assistant")
      #expect(server.state.count("/auth_token") == 2)
      let new = try #require(try await store.loadCredential())
      #expect(new.sessionID != old.sessionID)
    }
  }

  @Test("A second 401 after the refresh is returned, not looped on")
  func persistent401() async throws {
    try await TestServer.with { server in
      let client = makeClient(server)
      server.state.enqueue(
        Array(
          repeating: .status(401, body: #"{"error":{"message":"nope","code":"invalid_session"}}"#),
          count: 3),
        for: "/vision")
      let error = await expectedError { _ = try await vision(client) }
      #expect(error?.kind == .http)
      #expect(error?.statusCode == 401)
      #expect(error?.apiError?.code == "invalid_session")
      #expect(server.state.count("/vision") == 2)
      #expect(server.state.count("/auth_token") == 2)
    }
  }

  @Test("The session is refreshed shortly before it expires")
  func proactiveRefresh() async throws {
    try await TestServer.with(sessionLifetime: .seconds(120)) { server in
      let clock = MovableClock()
      let client = makeClient(server, clock: clock)
      _ = try await vision(client)
      clock.advance(by: 30)
      _ = try await vision(client)
      #expect(server.state.count("/auth_token") == 1, "90 s left is beyond the 60 s margin")
      clock.advance(by: 40)
      _ = try await vision(client)
      #expect(server.state.count("/auth_token") == 2, "50 s left is inside the 60 s margin")
    }
  }

  @Test("Concurrent requests share one bootstrap and one refresh")
  func concurrentRefresh() async throws {
    try await TestServer.with { server in
      let store = InMemoryTokenStore()
      let client = makeClient(server, store: store)
      server.state.enqueue([.delay(.milliseconds(200))], for: "/auth_token")
      try await withThrowingTaskGroup(of: VisionResponse.self) { group in
        for _ in 0..<8 { group.addTask { try await vision(client) } }
        for try await response in group { #expect(response.role == "assistant") }
      }
      #expect(server.state.count("/auth_token") == 1)
      let old = try #require(try await store.loadCredential())
      server.state.revoke(old.sessionID)
      try await withThrowingTaskGroup(of: VisionResponse.self) { group in
        for _ in 0..<8 { group.addTask { try await vision(client) } }
        for try await response in group { #expect(response.role == "assistant") }
      }
      #expect(server.state.count("/auth_token") == 2)
      // Each request sent on the revoked session was refused once and sent again; a task that
      // started after the refresh used the new session at once.
      let refused = server.state.requests.filter { $0.path == "/vision" }.dropFirst(8)
        .filter { $0.sessionID == old.sessionID }.count
      #expect((1...8).contains(refused), "the revoked session was used, once a request")
      #expect(server.state.count("/vision") == 16 + refused)
    }
  }

  @Test("A caller cancelled while waiting for the shared refresh returns at once")
  func cancelWhileWaitingForRefresh() async throws {
    try await TestServer.with { server in
      let client = makeClient(server)
      let gate = ReplyGate()
      defer { gate.open() }
      server.state.enqueue([.hold(gate)], for: "/auth_token")
      let other = Task { try await vision(client) }
      let cancelled = Task { try await vision(client) }
      let started = try await eventually { server.state.count("/auth_token") == 1 }
      #expect(started)
      cancelled.cancel()
      let error = try #require(await cancelled.result.failureValue as? DexCloudError)
      #expect(error.kind == .cancelled)
      #expect(server.state.count("/vision") == 0, "returned before the refresh finished")
      gate.open()
      let response = try await other.value
      #expect(response.role == "assistant")
      #expect(server.state.count("/auth_token") == 1)
    }
  }

  @Test("429 and 503 with Retry-After (seconds and HTTP date) are honoured, then succeed")
  func retryAfter() async throws {
    try await TestServer.with { server in
      let sleeper = SleepRecorder()
      let client = makeClient(server, sleeper: sleeper)
      _ = try await vision(client)
      let started = ContinuousClock.now
      let date = HTTPDate.format(Date().addingTimeInterval(5))
      server.state.enqueue(
        [.status(429, retryAfter: "2"), .status(503, retryAfter: date), .status(502)],
        for: "/vision")
      #expect(try await vision(client).role == "assistant")
      // The date has whole seconds, and the 503 came some time after it was written.
      let earliest = .seconds(4) - (ContinuousClock.now - started)
      let waits = sleeper.requested
      #expect(waits.count == 3)
      #expect(waits.first == .seconds(2))
      if waits.count == 3 {
        #expect(waits[1] >= earliest && waits[1] <= .seconds(6), "HTTP-date Retry-After")
        #expect(waits[2] <= .milliseconds(10), "no Retry-After: capped backoff")
      }
      let attempts = server.state.requests.filter { $0.path == "/vision" }.suffix(4)
      #expect(Set(attempts.compactMap(\.signature)).count == 4, "every attempt is re-signed")
    }
  }

  @Test("A Retry-After beyond the limit fails at once with the status and body excerpt")
  func retryAfterTooLong() async throws {
    try await TestServer.with { server in
      let sleeper = SleepRecorder()
      let client = makeClient(server, sleeper: sleeper)
      server.state.enqueue(
        [.status(503, retryAfter: "3600", body: "upstream overloaded")], for: "/vision")
      let error = await expectedError { _ = try await vision(client) }
      #expect(error?.statusCode == 503)
      #expect(error?.bodyExcerpt == "upstream overloaded")
      #expect(error?.isTransient == true)
      #expect(sleeper.requested.isEmpty)
      #expect(server.state.count("/vision") == 1)
    }
  }

  @Test("Retries are bounded by maximumAttempts")
  func boundedAttempts() async throws {
    try await TestServer.with { server in
      let client = makeClient(server)
      server.state.enqueue(Array(repeating: .status(500), count: 10), for: "/vision")
      let error = await expectedError { _ = try await vision(client) }
      #expect(error?.statusCode == 500)
      #expect(server.state.count("/vision") == 4)
    }
  }

  @Test("A slow server hits the per-request timeout")
  func slowServer() async throws {
    try await TestServer.with { server in
      let client = makeClient(server, retryPolicy: .none)
      _ = try await vision(client)
      server.state.enqueue([.delay(.seconds(2))], for: "/vision")
      let error = await expectedError {
        _ = try await client.send(Endpoints.vision, body: Self.body, timeout: .milliseconds(300))
      }
      #expect(error?.kind == .timedOut)
      // The client is still usable while the abandoned request is being served.
      let after = try await vision(client)
      #expect(after.role == "assistant")
    }
  }

  @Test("A timeout counts as a transient failure and is retried")
  func timeoutRetried() async throws {
    try await TestServer.with { server in
      let policy = RetryPolicy(
        maximumAttempts: 2, initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(1),
        maximumElapsed: .seconds(20))
      let logs = LogCapture()
      let client = makeClient(server, logs: logs, retryPolicy: policy)
      _ = try await vision(client)
      // The first attempt is held past its timeout; the retry gets the same 3 s.
      let gate = ReplyGate()
      defer { gate.open() }
      server.state.enqueue([.hold(gate)], for: "/vision")
      let response = try await client.send(
        Endpoints.vision, body: Self.body, timeout: .seconds(3))
      gate.open()
      #expect(response.statusCode == 200)
      #expect(server.state.count("/vision") == 3)
      #expect(
        logs.lines.contains {
          $0.contains("Request failed; retrying") && $0.contains("error=timedOut")
        })
    }
  }

  @Test("Both attempts timing out returns a timeout after the bounded attempts")
  func timeoutExhausted() async throws {
    try await TestServer.with { server in
      let policy = RetryPolicy(
        maximumAttempts: 2, initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(1),
        maximumElapsed: .seconds(20))
      let client = makeClient(server, retryPolicy: policy)
      _ = try await vision(client)
      // Each attempt's timeout long enough for the request to arrive on a loaded machine
      // (the count below is of arrivals), each reply held longer than that.
      server.state.enqueue([.delay(.seconds(4)), .delay(.seconds(4))], for: "/vision")
      let error = await expectedError {
        _ = try await client.send(Endpoints.vision, body: Self.body, timeout: .seconds(2))
      }
      #expect(error?.kind == .timedOut)
      #expect(server.state.count("/vision") == 3)
    }
  }

  /// Polls `condition` every 5 ms for up to a minute (a loaded CI run can stall a task for over
  /// 10 s); false if it never held.
  func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<12_000 {
      if condition() { return true }
      try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
  }

  @Test("Cancellation during a Retry-After wait stops everything")
  func cancellationMidRetry() async throws {
    try await TestServer.with { server in
      let sleeper = SleepRecorder(actual: nil)
      let client = makeClient(server, sleeper: sleeper)
      _ = try await vision(client)
      server.state.enqueue(
        Array(repeating: .status(503, retryAfter: "20"), count: 5), for: "/vision")
      let task = Task { try await vision(client) }
      let slept = try await eventually { !sleeper.requested.isEmpty }
      #expect(slept)
      task.cancel()
      let result = await task.result
      let error = try #require(result.failureValue as? DexCloudError)
      #expect(error.kind == .cancelled)
      #expect(server.state.count("/vision") == 2, "no attempt after the cancellation")
    }
  }

  @Test("Cancellation while the request is in flight cancels it")
  func cancellationInFlight() async throws {
    try await TestServer.with { server in
      let client = makeClient(server)
      _ = try await vision(client)
      let gate = ReplyGate()
      defer { gate.open() }
      server.state.enqueue([.hold(gate)], for: "/vision")
      let task = Task { try await vision(client) }
      let arrived = try await eventually { server.state.count("/vision") >= 2 }
      #expect(arrived)
      task.cancel()
      let error = try #require(await task.result.failureValue as? DexCloudError)
      #expect(error.kind == .cancelled)
      #expect(server.state.count("/vision") == 2)
      gate.open()
    }
  }

  @Test("An oversized payload is refused before anything is sent")
  func oversized() async throws {
    try await TestServer.with { server in
      let client = makeClient(server, maximumBody: 1000)
      let error = await expectedError {
        _ = try await client.send(Endpoints.vision, body: Data(count: 1001))
      }
      #expect(error?.kind == .payloadTooLarge)
      #expect(error?.message.contains("Downscale") == true)
      #expect(server.state.count("/auth_token") == 0)
      #expect(server.state.count("/vision") == 0)
    }
  }

  @Test("A wrong clock is corrected from the server's Date header")
  func clockSkew() async throws {
    try await TestServer.with { server in
      let clock = MovableClock(offset: -1000)
      let client = makeClient(server, clock: clock)
      let started = ContinuousClock.now
      let response = try await vision(client)
      let elapsed = started.duration(to: .now)
      #expect(response.role == "assistant")
      // The client's clock is 1000 s slow. The server's Date has whole seconds (and may be up to
      // a second old), and the client reads it some time after the server wrote it: at most the
      // call's duration, which on a loaded CI machine can be seconds.
      let offset = await client.clockOffset
      let lag = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
      #expect(offset <= 1000.5, "offset \(offset)")
      #expect(offset >= 1000 - 2 - lag, "offset \(offset) after a \(lag) s call")
      // /auth_token was refused once, then accepted; /vision never saw a stale timestamp.
      #expect(server.state.count("/auth_token") == 2)
      #expect(server.state.count("/vision") == 1)
    }
  }

  @Test("A wrong bootstrap key is an authentication error, not retried")
  func wrongBootstrapKey() async throws {
    try await TestServer.with { server in
      let client = makeClient(server, bootstrapKey: SigningSecret("not-the-real-key-123")!)
      let error = await expectedError { _ = try await vision(client) }
      #expect(error?.kind == .authentication)
      #expect(error?.statusCode == 401)
      #expect(error?.apiError?.code == "invalid_signature")
      #expect(server.state.count("/auth_token") == 1)
      #expect(server.state.count("/vision") == 0)
    }
  }

  @Test("The signed path keeps the query and percent-escapes through a real server")
  func queryPath() async throws {
    try await TestServer.with { server in
      let client = makeClient(server)
      let path = "/echo?lang=en%20GB&q=caf%C3%A9&empty="
      let content = try await client.send(
        Endpoint(path: path), body: Data(), as: VisionResponse.self
      ).content
      #expect(content == path)
    }
  }

  @Test("OpenAI-style error bodies are decoded; echoed secrets are redacted")
  func errorBodies() async throws {
    try await TestServer.with { server in
      let store = InMemoryTokenStore()
      let client = makeClient(server, store: store)
      _ = try await vision(client)
      let secret = try #require(try await store.loadCredential()).secret.value
      server.state.enqueue(
        [
          .status(
            400,
            body:
              #"{"error":{"message":"Invalid image for key \#(secret)","type":"invalid_request_error","param":"image","code":"invalid_image"}}"#
          )
        ],
        for: "/vision")
      let error = try #require(await expectedError { _ = try await vision(client) })
      #expect(error.statusCode == 400)
      #expect(error.apiError?.code == "invalid_image")
      #expect(error.apiError?.param == "image")
      #expect(error.apiError?.message?.hasPrefix("Invalid image for key") == true)
      for text in [
        error.description, error.localizedDescription, error.bodyExcerpt ?? "",
        error.apiError?.message ?? "",
      ] {
        #expect(!text.contains(secret))
      }
      #expect(error.bodyExcerpt?.contains("[redacted]") == true)
    }
  }
}

extension Result {
  var failureValue: Failure? {
    if case .failure(let failure) = self { return failure }
    return nil
  }
}
