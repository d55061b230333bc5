import DexTestSupport
import Foundation
import Testing

@testable import DexCloud

/// A scripted ``HTTPTransport``: isolates the client's decision logic from the network.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
  enum Step {
    case fail(DexCloudError), respond(TransportResponse)
    /// Answers the default reply after a real wait (cancellable), as a stalled server would.
    case stall(Duration)
  }
  private let lock = NSLock()
  private var steps: [Step]
  private(set) var sent: [TransportRequest] = []
  private var timeouts: [Duration] = []

  init(_ steps: [Step]) { self.steps = steps }

  /// The reply given when no step is left: a vision answer.
  static let ok = TransportResponse(
    statusCode: 200, headers: [:], body: Data(#"{"role":"a","content":"ok"}"#.utf8))

  var sentCount: Int { lock.sync { sent.count } }
  /// The timeout the client gave each attempt, in order.
  var requestedTimeouts: [Duration] { lock.sync { timeouts } }

  func send(_ request: TransportRequest, timeout: Duration) async throws -> TransportResponse {
    let step: Step? = lock.sync {
      sent.append(request)
      timeouts.append(timeout)
      return steps.isEmpty ? nil : steps.removeFirst()
    }
    switch step {
    case .fail(let error): throw error
    case .respond(let response): return response
    case .stall(let duration):
      try await Task.sleep(for: duration)
      return Self.ok
    case nil: return Self.ok
    }
  }
}

@Suite("ApiClient decisions (scripted transport)")
struct ClientUnitTests {
  static let credential = SessionCredential(
    sessionID: "dx1.k1.YQ.9999999999.nonce.tag", secret: SigningSecret("unit-session-secret")!,
    expiresAt: Date().addingTimeInterval(3600))

  static func client(
    _ transport: ScriptedTransport, policy: RetryPolicy = fastRetries,
    sleeper: SleepRecorder = SleepRecorder(),
    baseURL: String = "https://api.example.com/api/", insecure: Bool = false
  ) -> ApiClient {
    ApiClient(
      configuration: DexCloudConfiguration(
        baseURL: URL(string: baseURL)!, bootstrapKey: SigningSecret("unit-bootstrap")!,
        retryPolicy: policy, allowsInsecureHTTP: insecure),
      transport: transport, tokenStore: InMemoryTokenStore(credential: credential),
      sleep: sleeper.sleep, random: { 1 })
  }

  @Test("Network errors are retried with capped exponential backoff, then returned")
  func networkRetries() async throws {
    let failure = DexCloudError(kind: .network, message: "refused")
    let transport = ScriptedTransport(Array(repeating: .fail(failure), count: 5))
    let sleeper = SleepRecorder()
    let policy = RetryPolicy(
      maximumAttempts: 4, initialBackoff: .milliseconds(100), maximumBackoff: .milliseconds(300))
    let error = await expectedError {
      _ = try await Self.client(transport, policy: policy, sleeper: sleeper).send(
        Endpoints.vision, body: Data())
    }
    #expect(error?.kind == .network)
    #expect(transport.sentCount == 4)
    #expect(sleeper.requested == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
  }

  @Test("Session-signed requests go to the prefixed URL with session header and signature")
  func requestShape() async throws {
    let transport = ScriptedTransport([])
    _ = try await Self.client(transport).send(Endpoints.vision, body: Data("{}".utf8))
    let request = try #require(transport.sent.first)
    #expect(request.url.absoluteString == "https://api.example.com/api/vision")
    #expect(request.headers["x-dex-session"] == Self.credential.sessionID)
    let timestamp = try #require(request.headers["x-timestamp"])
    let expected = RequestSigner(secret: Self.credential.secret).signature(
      for: CanonicalRequest(
        method: "POST", path: "/api/vision", timestamp: timestamp, body: Data("{}".utf8)))
    #expect(request.headers["x-signature"] == expected)
  }

  @Test("A timestamp refusal without a Date header is returned, not retried")
  func skewWithoutDate() async throws {
    let body = Data(
      #"{"error":{"message":"off by 900 s","type":"authentication_error","code":"timestamp_out_of_window"}}"#
        .utf8)
    let transport = ScriptedTransport([
      .respond(TransportResponse(statusCode: 401, headers: [:], body: body)),
      .respond(TransportResponse(statusCode: 401, headers: [:], body: body)),
    ])
    let error = await expectedError {
      _ = try await Self.client(transport).send(Endpoints.authToken, body: Data())
    }
    #expect(error?.apiError?.code == "timestamp_out_of_window")
    #expect(transport.sentCount == 1)
  }

  static let skewBody = Data(
    #"{"error":{"message":"off","type":"authentication_error","code":"timestamp_out_of_window"}}"#
      .utf8)

  /// A 401 `timestamp_out_of_window` whose `Date` is `offset` seconds from now.
  static func skewRefusal(offset: TimeInterval) -> ScriptedTransport.Step {
    .respond(
      TransportResponse(
        statusCode: 401, headers: ["Date": HTTPDate.format(Date().addingTimeInterval(offset))],
        body: skewBody))
  }

  @Test("A server clock within the bound is adopted and the request re-signed with it")
  func skewWithinBoundIsAdopted() async throws {
    let started = Date()
    let transport = ScriptedTransport([Self.skewRefusal(offset: 2 * 3600)])
    let client = Self.client(transport)
    _ = try await client.send(Endpoints.vision, body: Data("{}".utf8))
    #expect(transport.sentCount == 2)
    let offset = await client.clockOffset
    // The refusal's `Date` was written when the script was made: on a loaded machine the client
    // reads it seconds later, so the tolerance grows with the time the test has taken.
    let slack = 5 + Date().timeIntervalSince(started)
    #expect(abs(offset - 2 * 3600) < slack)
    let retried = try #require(transport.sent.last?.headers["x-timestamp"].flatMap(Double.init))
    #expect(abs(retried - (Date().timeIntervalSince1970 + 2 * 3600)) < 5 + slack)
  }

  @Test("A Retry-After date is read on the server's clock, once its offset is known")
  func retryAfterDateUsesTheLearnedOffset() async throws {
    let serverNow = Date().addingTimeInterval(2 * 3600)
    let transport = ScriptedTransport([
      Self.skewRefusal(offset: 2 * 3600),
      .respond(
        TransportResponse(
          statusCode: 503,
          headers: ["Retry-After": HTTPDate.format(serverNow.addingTimeInterval(5))],
          body: Data())),
    ])
    let sleeper = SleepRecorder()
    _ = try await Self.client(transport, sleeper: sleeper).send(
      Endpoints.vision, body: Data("{}".utf8))
    #expect(transport.sentCount == 3)
    // About 5 s (the date is whole seconds, and the test takes some), not two hours and 5 s.
    let waited = try #require(sleeper.requested.last)
    #expect(waited <= .seconds(10), "\(waited)")
    // Without a learned offset, the 503's own Date says what the server's clock reads.
    let dated = ScriptedTransport([
      .respond(
        TransportResponse(
          statusCode: 503,
          headers: [
            "Retry-After": HTTPDate.format(serverNow.addingTimeInterval(5)),
            "Date": HTTPDate.format(serverNow),
          ], body: Data()))
    ])
    let datedSleeper = SleepRecorder()
    _ = try await Self.client(dated, sleeper: datedSleeper).send(
      Endpoints.vision, body: Data("{}".utf8))
    #expect(datedSleeper.requested == [.seconds(5)])
  }

  @Test(
    "A server clock beyond the bound (either way) is not adopted; the 401 is returned",
    arguments: [48 * 3600.0, -30 * 86_400.0, 24 * 3600.0 + 120])
  func skewBeyondBoundIsRefused(_ offset: TimeInterval) async throws {
    let transport = ScriptedTransport([
      Self.skewRefusal(offset: offset), Self.skewRefusal(offset: offset),
    ])
    let client = Self.client(transport)
    let error = await expectedError {
      _ = try await client.send(Endpoints.vision, body: Data("{}".utf8))
    }
    #expect(error?.apiError?.code == "timestamp_out_of_window")
    #expect(transport.sentCount == 1)
    #expect(await client.clockOffset == 0)
  }

  @Test("The clock bound is the configuration's, inclusive, and refuses non-finite offsets")
  func clockBound() {
    let day = Duration.seconds(86_400)
    #expect(
      DexCloudConfiguration(
        baseURL: URL(string: "https://h")!, bootstrapKey: SigningSecret("k")!
      ).maximumClockCorrection == day)
    #expect(ApiClient.isAdoptable(86_400, bound: day))
    #expect(ApiClient.isAdoptable(-86_400, bound: day))
    #expect(!ApiClient.isAdoptable(86_401, bound: day))
    #expect(!ApiClient.isAdoptable(-86_401, bound: day))
    #expect(!ApiClient.isAdoptable(.infinity, bound: day))
    #expect(!ApiClient.isAdoptable(.nan, bound: day))
    #expect(ApiClient.isAdoptable(0.25, bound: .milliseconds(500)))
    #expect(!ApiClient.isAdoptable(0.75, bound: .milliseconds(500)))
  }

  @Test("A Retry-After that would exceed the total budget ends the call without waiting")
  func budget() async throws {
    let transport = ScriptedTransport([
      .respond(TransportResponse(statusCode: 503, headers: ["retry-after": "5"], body: Data()))
    ])
    let sleeper = SleepRecorder()
    let policy = RetryPolicy(maximumElapsed: .seconds(2))
    let error = await expectedError {
      _ = try await Self.client(transport, policy: policy, sleeper: sleeper).send(
        Endpoints.vision, body: Data())
    }
    #expect(error?.statusCode == 503)
    #expect(sleeper.requested.isEmpty)
  }

  @Test("Statuses outside the retryable set fail at once")
  func nonRetryable() async throws {
    for status in [400, 403, 404, 413, 422, 501] {
      let transport = ScriptedTransport([
        .respond(TransportResponse(statusCode: status, headers: [:], body: Data()))
      ])
      let error = await expectedError {
        _ = try await Self.client(transport).send(Endpoints.vision, body: Data())
      }
      #expect(error?.statusCode == status)
      #expect(transport.sentCount == 1)
    }
  }

  @Test("A reply that is not the expected model is a decoding error with an excerpt")
  func decoding() async throws {
    let transport = ScriptedTransport([
      .respond(TransportResponse(statusCode: 200, headers: [:], body: Data("not json".utf8)))
    ])
    let error = await expectedError {
      _ = try await Self.client(transport).send(
        Endpoints.vision, body: Data(), as: VisionResponse.self)
    }
    #expect(error?.kind == .decoding)
    #expect(error?.bodyExcerpt == "not json")
  }

  @Test("Plain http is refused except to loopback, or when explicitly allowed")
  func insecureHTTP() async throws {
    let transport = ScriptedTransport([])
    let error = await expectedError {
      _ = try await Self.client(transport, baseURL: "http://api.example.com").send(
        Endpoints.vision, body: Data())
    }
    #expect(error?.kind == .invalidConfiguration)
    #expect(transport.sentCount == 0)
    _ = try await Self.client(transport, baseURL: "http://api.example.com", insecure: true).send(
      Endpoints.vision, body: Data())
    _ = try await Self.client(transport, baseURL: "http://localhost:8080").send(
      Endpoints.vision, body: Data())
    #expect(transport.sentCount == 2)
  }

  @Test("Backoff doubles, caps, and jitters within the upper half")
  func backoff() {
    let policy = RetryPolicy(initialBackoff: .milliseconds(500), maximumBackoff: .seconds(8))
    #expect(policy.backoff(forRetry: 1, unitRandom: 1) == .milliseconds(500))
    #expect(policy.backoff(forRetry: 1, unitRandom: 0) == .milliseconds(250))
    #expect(policy.backoff(forRetry: 3, unitRandom: 1) == .seconds(2))
    #expect(policy.backoff(forRetry: 10, unitRandom: 1) == .seconds(8))
    #expect(policy.backoff(forRetry: 1000, unitRandom: 0.5) == .seconds(6))
    #expect(RetryPolicy(maximumAttempts: 0).maximumAttempts == 1)
  }

  @Test("Retry-After and Date parsing")
  func httpDates() throws {
    let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == now)
    #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == now)
    #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == now)
    #expect(HTTPDate.parse(HTTPDate.format(now)) == now)
    #expect(HTTPDate.parse("yesterday") == nil)
    #expect(HTTPDate.retryAfter("120", now: now) == .seconds(120))
    #expect(HTTPDate.retryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
    #expect(HTTPDate.retryAfter("Sun, 06 Nov 1994 08:49:27 GMT", now: now) == .zero)
    for bad in ["-1", "1.5", "", "99999999999", String(repeating: "9", count: 100)] {
      #expect(HTTPDate.retryAfter(bad, now: now) == nil, "\(bad.prefix(12))")
    }
  }

  @Test("OpenAI-style and other error bodies")
  func errorBodies() {
    let full = APIErrorDetail.parse(
      Data(#"{"error":{"message":"m","type":"t","param":"p","code":429}}"#.utf8))
    #expect(full == APIErrorDetail(message: "m", type: "t", param: "p", code: "429"))
    #expect(APIErrorDetail.parse(Data(#"{"error":"flat"}"#.utf8))?.message == "flat")
    #expect(APIErrorDetail.parse(Data(#"{"message":"top"}"#.utf8))?.message == "top")
    #expect(APIErrorDetail.parse(Data("<html>".utf8)) == nil)
    #expect(APIErrorDetail.parse(Data(#"{"error":{}}"#.utf8)) == nil)
    #expect(APIErrorDetail.parse(Data()) == nil)
  }

  @Test("Redaction removes known secrets and long token runs, and bounds excerpts")
  func redaction() {
    let redactor = Redactor(secrets: ["hunter2-secret"])
    #expect(redactor.redact("key=hunter2-secret!") == "key=[redacted]!")
    let token = String(repeating: "a1B2", count: 10)
    #expect(redactor.redact("sig \(token) end") == "sig [redacted] end")
    #expect(redactor.redact("short abc123 words stay") == "short abc123 words stay")
    let excerpt = redactor.excerpt(of: Data(String(repeating: "word ", count: 200).utf8))
    #expect(excerpt.count == 201)
    #expect(excerpt.hasSuffix("…"))
    #expect(redactor.excerpt(of: Data("line1\nline2".utf8)) == "line1 line2")
    // A server echoing a key JSON-escaped ("/" as "\/", as JSONEncoder writes it) splits it
    // into runs shorter than 32: the escape is read first, so the key is still caught.
    let key = "Kx7pQ2mZr9TfLw3Vb8Nc/Hd4Js6Yg1Ua5Ee0Oi2Rt"
    let keyed = Redactor(secrets: [key])
    let echoed = #"{"detail":"invalid bootstrap key Kx7pQ2mZr9TfLw3Vb8Nc\/Hd4Js6Yg1Ua5Ee0Oi2Rt"}"#
    for redacted in [keyed.redact(echoed), Redactor(secrets: []).redact(echoed)] {
      #expect(!redacted.contains("Kx7pQ2mZ") && !redacted.contains("Hd4Js6Yg"), "\(redacted)")
    }
  }

  @Test("Configuration from the environment names missing variables, never values")
  func environment() throws {
    let config = try DexCloudConfiguration.fromEnvironment([
      "DEX_CLOUD_BASE_URL": "https://api.example.com", "DEX_CLOUD_BOOTSTRAP_KEY": "env-key-value",
    ])
    #expect(config.baseURL.host == "api.example.com")
    #expect(config.requestTimeout == .seconds(120))
    #expect(!"\(config)".contains("env-key-value"))
    #expect(throws: DexCloudError.self) {
      try DexCloudConfiguration.fromEnvironment(["DEX_CLOUD_BASE_URL": "https://a.example"])
    }
    #expect(throws: DexCloudError.self) {
      try DexCloudConfiguration.fromEnvironment([
        "DEX_CLOUD_BOOTSTRAP_KEY": "k", "DEX_CLOUD_BASE_URL": "not a url",
      ])
    }
  }
}
