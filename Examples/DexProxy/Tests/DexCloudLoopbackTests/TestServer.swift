import DexCloudServer
import DexExamplesTestSupport
import DexProxyTesting
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

@testable import DexCloud

/// What the test server should do with the next request to a route, before (or instead of)
/// its normal, verified handling.
enum ScriptedAction: Sendable {
  /// Answer at once with this status, optional `Retry-After`, and body.
  case status(Int, retryAfter: String? = nil, body: String = #"{"error":{"message":"busy"}}"#)
  /// Wait this long, then handle the request normally.
  case delay(Duration)
  /// Wait until the test opens the gate (at most a minute), then handle the request normally:
  /// for tests whose premise is "the request is still in flight", which no fixed delay keeps
  /// on a loaded machine.
  case hold(ReplyGate)
}

/// A gate a held request waits at until the test opens it.
final class ReplyGate: Sendable {
  private let opened = Mutex(false)

  /// Lets the held requests (and any later ones) through.
  func open() { opened.withLock { $0 = true } }

  /// Waits until ``open()`` or a minute has passed; ends early when the task is cancelled.
  func wait() async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !opened.withLock({ $0 }), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
  }
}

/// A headers-and-path record of one request the server received (no bodies kept).
struct ReceivedRequest: Sendable {
  var path: String
  var timestamp: String?
  var signature: String?
  var sessionID: String?
}

/// Shared, lock-protected state of one test server.
final class ServerState: @unchecked Sendable {
  private let lock = NSLock()
  private var scripts: [String: [ScriptedAction]] = [:]
  private var received: [ReceivedRequest] = []
  private var counts: [String: Int] = [:]
  private var reply = VisionResponse(role: "assistant", content: "A tabby cat on a sofa.")
  private var revoked: Set<String> = []
  private var lastBody: Data?

  func enqueue(_ actions: [ScriptedAction], for route: String) {
    lock.sync { scripts[route, default: []].append(contentsOf: actions) }
  }

  func nextAction(for route: String) -> ScriptedAction? {
    lock.sync {
      guard var queue = scripts[route], !queue.isEmpty else { return nil }
      let first = queue.removeFirst()
      scripts[route] = queue
      return first
    }
  }

  func record(_ request: ReceivedRequest, route: String) {
    lock.sync {
      received.append(request)
      counts[route, default: 0] += 1
    }
  }

  func count(_ route: String) -> Int { lock.sync { counts[route] ?? 0 } }

  private var hugeBytes = 0
  /// Bytes of `/huge` and `/declared` written before the client went.
  var hugeBytesSent: Int { lock.sync { hugeBytes } }
  func addHugeBytesSent(_ count: Int) { lock.sync { hugeBytes += count } }
  var requests: [ReceivedRequest] { lock.sync { received } }

  /// Session ids the server now refuses with 401 `invalid_session`.
  func revoke(_ sessionID: String) { lock.sync { _ = revoked.insert(sessionID) } }
  func isRevoked(_ sessionID: String?) -> Bool {
    lock.sync { sessionID.map(revoked.contains) ?? false }
  }

  /// The body of the last verified `/vision` request.
  var lastVisionBody: Data? {
    get { lock.sync { lastBody } }
    set { lock.sync { lastBody = newValue } }
  }

  var visionReply: VisionResponse {
    get { lock.sync { reply } }
    set { lock.sync { reply = newValue } }
  }
}

/// A real HTTP server on 127.0.0.1 (Hummingbird, port 0) that implements the DexKit contract
/// with DexCloud's own ``RequestAuthenticator``: `/auth_token`, `/vision`, and `/echo` (which
/// verifies a session-signed request to any query string and echoes `{role, content: path}`).
struct TestServer: Sendable {
  static let bootstrapKey = SigningSecret("test-bootstrap-key-6f1d2c9a8b7e")!
  static let serverSecret = SigningSecret("test-server-secret-0a9b8c7d6e5f")!

  let port: Int
  let state: ServerState
  /// Everything the server-side verifier logged.
  let logs: LogCapture
  let authenticator: RequestAuthenticator
  private let server: LoopbackServer.Running

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Starts a server, runs `body`, and always stops the server.
  static func with<T: Sendable>(
    sessionLifetime: Duration = .seconds(3600),
    _ body: (TestServer) async throws -> T
  ) async throws -> T {
    let server = try await start(sessionLifetime: sessionLifetime)
    do {
      let result = try await body(server)
      await server.stop()
      return result
    } catch {
      await server.stop()
      throw error
    }
  }

  static func start(sessionLifetime: Duration) async throws -> TestServer {
    let state = ServerState()
    let logs = LogCapture()
    let keyring = ServerKeyring(current: ServerKey(id: "k1", secret: serverSecret)!)
    let authenticator = RequestAuthenticator(
      bootstrapKeys: [bootstrapKey],
      issuer: SessionIssuer(keyring: keyring, lifetime: sessionLifetime),
      verifier: RequestVerifier(logger: logs.logger("verifier")))

    let router = Router()
    router.post("/auth_token") { request, _ -> Response in
      try await handleAuthToken(request, state: state, authenticator: authenticator)
    }
    router.post("/vision") { request, _ -> Response in
      try await handleSession(
        request, route: "/vision", state: state,
        authenticator: authenticator)
    }
    router.post("/echo") { request, _ -> Response in
      try await handleSession(
        request, route: "/echo", state: state,
        authenticator: authenticator)
    }

    // 64 MiB sent a megabyte at a time, counting what was written: a client that stops reading
    // at its limit closes the connection, and the writes fail well before the end. Once as a
    // chunked body, once with its length declared up front.
    router.get("/huge") { _, _ -> Response in
      Response(status: .ok, body: pacedMegabytes(64, declared: false, state: state))
    }
    router.get("/declared") { _, _ -> Response in
      Response(status: .ok, body: pacedMegabytes(64, declared: true, state: state))
    }
    // A redirect to this server's own /landing, which counts the requests that reach it.
    router.get("/redirect") { request, _ -> Response in
      var fields = HTTPFields()
      fields[.location] = "/landing"
      return Response(status: .temporaryRedirect, headers: fields)
    }
    router.get("/landing") { request, _ -> Response in
      state.record(received(request).0, route: "/landing")
      return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "landed")))
    }

    let server = try await LoopbackServer.start(router, label: "test-server")
    return TestServer(
      port: server.port, state: state, logs: logs, authenticator: authenticator, server: server)
  }

  func stop() async {
    await server.stop()
  }

  // MARK: Handlers

  /// `count` megabytes of "a", paced (20 ms each, so 1.3 s for 64) so that what was written
  /// measures how long the client kept reading, not how much the server could buffer.
  private static func pacedMegabytes(
    _ count: Int, declared: Bool, state: ServerState
  ) -> ResponseBody {
    ResponseBody(contentLength: declared ? count << 20 : nil) { writer in
      for _ in 0..<count {
        try await writer.write(ByteBuffer(repeating: UInt8(ascii: "a"), count: 1 << 20))
        state.addHugeBytesSent(1 << 20)
        try await Task.sleep(for: .milliseconds(20))
      }
      try await writer.finish(nil)
    }
  }

  private static func received(_ request: Request) -> (ReceivedRequest, [String: String]) {
    var headers: [String: String] = [:]
    for field in request.headers { headers[field.name.canonicalName] = field.value }
    let record = ReceivedRequest(
      path: request.head.path ?? "/",
      timestamp: headers[DexCloudHeader.timestamp],
      signature: headers[DexCloudHeader.signature],
      sessionID: headers[DexCloudHeader.session])
    return (record, headers)
  }

  private static func signedRequest(
    _ request: Request, headers: [String: String]
  ) async throws
    -> SignedRequest
  {
    let buffer = try await request.body.collect(upTo: 32 << 20)
    return SignedRequest(
      method: request.method.rawValue, path: request.head.path ?? "/", headers: headers,
      body: Data(buffer.readableBytesView))
  }

  private static func scripted(_ route: String, state: ServerState) async throws -> Response? {
    switch state.nextAction(for: route) {
    case .status(let code, let retryAfter, let body):
      var fields = HTTPFields()
      fields[.contentType] = "application/json"
      if let retryAfter { fields[HTTPField.Name("Retry-After")!] = retryAfter }
      return Response(
        status: .init(code: code), headers: fields,
        body: .init(byteBuffer: ByteBuffer(string: body)))
    case .delay(let duration):
      try await Task.sleep(for: duration)
      return nil
    case .hold(let gate):
      try await gate.wait()
      return nil
    case nil:
      return nil
    }
  }

  private static func refusal(_ error: RequestVerificationError) -> Response {
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    // Hummingbird adds the `Date` header the client reads for clock correction.
    return Response(
      status: .init(code: error.httpStatus), headers: fields,
      body: .init(byteBuffer: ByteBuffer(bytes: Array(error.responseBody))))
  }

  private static func json(_ value: some Encodable) throws -> Response {
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    let data = try JSONEncoder().encode(value)
    return Response(
      status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: Array(data))))
  }

  private static func handleAuthToken(
    _ request: Request, state: ServerState, authenticator: RequestAuthenticator
  ) async throws -> Response {
    let (record, headers) = received(request)
    state.record(record, route: "/auth_token")
    if let response = try await scripted("/auth_token", state: state) { return response }
    let signed = try await signedRequest(request, headers: headers)
    do {
      try await authenticator.authenticateBootstrap(signed)
    } catch {
      return refusal(error)
    }
    let subject = (try? JSONDecoder().decode(AuthTokenRequest.self, from: signed.body))?.subject
    return try json(try authenticator.issuer.issue(subject: subject ?? "anonymous"))
  }

  private static func handleSession(
    _ request: Request, route: String, state: ServerState, authenticator: RequestAuthenticator
  ) async throws -> Response {
    let (record, headers) = received(request)
    state.record(record, route: route)
    if let response = try await scripted(route, state: state) { return response }
    let signed = try await signedRequest(request, headers: headers)
    if state.isRevoked(record.sessionID) {
      return refusal(.invalidSession)
    }
    do {
      _ = try await authenticator.authenticateSession(signed)
    } catch {
      return refusal(error)
    }
    if route == "/vision" { state.lastVisionBody = signed.body }
    if route == "/echo" {
      return try json(VisionResponse(role: "echo", content: record.path))
    }
    return try json(state.visionReply)
  }

}
