import DexExamplesTestSupport
import DexProxyTesting
import HTTPSupport
import Hummingbird
import Logging
import MetricsTestKit
import NIOCore
import Testing

/// The set-up both servers share, on a real server on 127.0.0.1: every request (a route's
/// answer, a guard's refusal, a 404, an error thrown) logged and counted exactly once, with
/// bounded labels and no secret sent in a header, the path or the query; the start-up line.
@Suite("ServerSetup")
struct ServerSetupTests {
  static let key = "setup-test-key-5d8e1f"

  /// A guard that refuses a request without ``key`` in its `X-Test-Key` header.
  struct KeyGuard<Context: RequestContext>: RouterMiddleware {
    func handle(
      _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
      let sent = request.headers.first { $0.name.canonicalName == "x-test-key" }?.value
      guard sent == ServerSetupTests.key else {
        RequestOutcome.note("refused")
        return Response(status: .forbidden)
      }
      return try await next(request, context)
    }
  }

  struct Failure: Error {}

  /// Runs a server with the key guard and three routes, logging into `logs` and counting into
  /// `metrics`, and calls `body` with its port.
  /// `GET /stream` writes `first`, then waits for `gate` before writing `last`; `/unended`
  /// writes `first` and returns without ending its response; `/stream-thrown` throws after
  /// asking for a streamed log line.
  static func withServer(
    logs: LogCapture, metrics: TestMetrics, gate: AsyncStream<Void> = AsyncStream { $0.finish() },
    _ body: (Int) async throws -> Void
  ) async throws {
    let requestLog = RequestLogMiddleware<BasicRequestContext>(
      metrics: RequestMetrics(
        requests: "test_requests_total", duration: "test_request_duration_seconds",
        factory: metrics))
    let server = try await LoopbackServer.start { onServerRunning in
      ServerSetup.application(
        ServerSettings(name: "setup-test", host: "127.0.0.1", port: 0, readTimeout: .seconds(10)),
        context: BasicRequestContext.self, requestLog: requestLog,
        middlewares: [KeyGuard<BasicRequestContext>()],
        routes: { router in
          router.get("/hello") { _, _ in
            RequestOutcome.note("greeted")
            return "hello"
          }
          router.get("/items/:id") { _, _ in "item" }
          router.get("/bad") { _, _ -> String in throw HTTPError(.badRequest) }
          router.get("/broken") { _, _ -> String in throw Failure() }
          router.get("/stream") { _, _ in
            let outcome = RequestOutcome.streamed()
            RequestOutcome.note("started")
            return Response(
              status: .ok,
              body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "first\n"))
                for await _ in gate { break }
                try await writer.write(ByteBuffer(string: "last\n"))
                outcome?.note("streamed")
                try await writer.finish(nil)
              })
          }
          // Streamed bodies that go wrong (ServerSetupTests+Streaming.swift).
          router.get("/unended") { _, _ in
            _ = RequestOutcome.streamed()
            return Response(
              status: .ok,
              body: ResponseBody { writer in
                // Stops without ending its response.
                try await writer.write(ByteBuffer(string: "first\n"))
              })
          }
          router.get("/stream-thrown") { _, _ -> Response in
            _ = RequestOutcome.streamed()
            throw Failure()
          }
        },
        logger: logs.logger("setup-test"),
        startupMetadata: { _ in ["extra": "stated"] },
        onServerRunning: onServerRunning)
    }
    do {
      try await body(server.port)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  /// `GET target` with the key header (or a wrong key), sent as is: the status.
  static func get(
    _ target: String, port: Int, key: String = ServerSetupTests.key
  ) async throws
    -> Int?
  {
    let request =
      "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
      + "X-Test-Key: \(key)\r\nAuthorization: Bearer \(key)\r\n\r\n"
    return try await RawConnection.status(answering: request, port: port)
  }

  @Test func everyRequestIsLoggedAndCountedOnce() async throws {
    let logs = LogCapture()
    let metrics = TestMetrics()
    let secret = "secret-in-path-8c2a"
    try await Self.withServer(logs: logs, metrics: metrics) { port in
      let requests: [(target: String, key: String, route: String, status: Int, outcome: String)] = [
        ("/hello", Self.key, "/hello", 200, "greeted"),
        ("/items/\(secret)?token=\(secret)", Self.key, "/items/{id}", 200, "ok"),
        ("/hello", "wrong-\(secret)", "/hello", 403, "refused"),
        ("/\(secret)/nowhere?key=\(secret)", Self.key, "NotFound", 404, "not_found"),
        ("/bad", Self.key, "/bad", 400, "status_400"),
        ("/broken", Self.key, "/broken", 500, "status_500"),
      ]
      for request in requests {
        let status = try await Self.get(request.target, port: port, key: request.key)
        #expect(status == request.status, "\(request.target)")
      }
      let handled = logs.handledRequests
      #expect(handled.count == requests.count)
      #expect(handled.allSatisfy { $0.contains(" duration_ms=") })
      for request in requests {
        let lines = logs.handledRequests(
          route: request.route, status: request.status, outcome: request.outcome)
        #expect(lines == 1, "\(request.route) \(request.status): \(lines) lines")
        let counter = try metrics.expectCounter(
          "test_requests_total",
          [
            ("route", request.route), ("status", RequestMetrics.statusClass(request.status)),
            ("outcome", request.outcome),
          ])
        #expect(counter.totalValue == 1, "\(request.route) \(request.status) counted")
      }
      #expect(metrics.counters.map(\.totalValue).reduce(0, +) == Int64(requests.count))
      #expect(
        try metrics.expectTimer("test_request_duration_seconds", [("route", "/hello")]).values
          .count == 2)
      // 5xx at warning, 4xx at notice, the rest at info.
      #expect(handled.contains { $0.hasPrefix("[warning]") && $0.contains("status=500") })
      #expect(handled.contains { $0.hasPrefix("[notice]") && $0.contains("status=403") })
      #expect(handled.contains { $0.hasPrefix("[info]") && $0.contains("status=200") })
      let labels = (metrics.counters.flatMap(\.dimensions) + metrics.timers.flatMap(\.dimensions))
        .map { "\($0.0)=\($0.1)" }
      for text in logs.lines + labels {
        #expect(!text.contains(secret), "the secret reached \(text.prefix(40))…")
        #expect(!text.contains(Self.key), "the key reached \(text.prefix(40))…")
      }
    }
  }

  /// A streamed reply is logged and counted once, when its body ends, with the outcome its body
  /// noted: nothing while the body is held open.
  @Test func aStreamedReplyIsLoggedOnceWhenItEnds() async throws {
    let logs = LogCapture()
    let metrics = TestMetrics()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    try await Self.withServer(logs: logs, metrics: metrics, gate: gate) { port in
      let connection = try RawConnection(port: port)
      defer { connection.close() }
      let request =
        "GET /stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        + "X-Test-Key: \(Self.key)\r\n\r\n"
      #expect(connection.send(request))
      // The head and the first piece have arrived; the body waits at the gate.
      var received = ""
      while !received.contains("first") {
        guard case .bytes(let bytes) = try await offThePool({ connection.read() }) else { break }
        received += String(decoding: bytes, as: UTF8.self)
      }
      #expect(received.hasPrefix("HTTP/1.1 200"))
      #expect(logs.handledRequests(route: "/stream") == 0)
      open.yield()
      while case .bytes(let bytes) = try await offThePool({ connection.read() }) {
        received += String(decoding: bytes, as: UTF8.self)
      }
      #expect(received.contains("last"))
      for _ in 0..<500 where logs.handledRequests(route: "/stream") == 0 {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(logs.handledRequests(route: "/stream") == 1)
      #expect(logs.handledRequests(route: "/stream", status: 200, outcome: "streamed") == 1)
      let counter = try metrics.expectCounter(
        "test_requests_total", [("route", "/stream"), ("status", "2xx"), ("outcome", "streamed")])
      #expect(counter.totalValue == 1)
      #expect(metrics.counters.map(\.totalValue).reduce(0, +) == 1)
    }
  }

  @Test func theStartUpLineStatesTheAddress() async throws {
    let logs = LogCapture()
    try await Self.withServer(logs: logs, metrics: TestMetrics()) { port in
      let line = logs.lines.first { $0.contains("setup-test listening") } ?? ""
      #expect(line.contains("host=127.0.0.1 "))
      #expect(line.contains("port=\(port)"))
      #expect(line.contains("extra=stated"))
    }
  }

  @Test func statusClassesAreBounded() {
    #expect(RequestMetrics.statusClass(200) == "2xx")
    #expect(RequestMetrics.statusClass(404) == "4xx")
    #expect(RequestMetrics.statusClass(99) == "1xx")
    #expect(RequestMetrics.statusClass(999) == "5xx")
  }
}
