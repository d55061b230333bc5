import DexExamplesTestSupport
import HTTPSupport
import MetricsTestKit
import Testing

/// Streamed bodies that go wrong, through the shared set-up's request log: one that returns
/// without ending its response has it ended for it (else its client would wait for the rest and
/// its connection for a next request the server would not read), and a handler that throws
/// after asking for a streamed log line is logged and counted once.
extension ServerSetupTests {
  /// Reads from `connection` until `received` contains `marker`, or the connection closes, or
  /// a read times out (the connection's 10 s).
  static func read(
    _ connection: RawConnection, into received: inout String, until marker: String
  ) async throws {
    while !received.contains(marker) {
      guard case .bytes(let bytes) = try await offThePool({ connection.read() }) else { return }
      received += String(decoding: bytes, as: UTF8.self)
    }
  }

  @Test func aStreamedBodyThatStopsWithoutEndingItsResponseHasItEnded() async throws {
    let logs = LogCapture()
    let metrics = TestMetrics()
    try await Self.withServer(logs: logs, metrics: metrics) { port in
      let connection = try RawConnection(port: port)
      defer { connection.close() }
      // Kept alive: the response must end for the connection to take a next request.
      #expect(
        connection.send(
          "GET /unended HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Test-Key: \(Self.key)\r\n\r\n"))
      var received = ""
      try await Self.read(connection, into: &received, until: "\r\n0\r\n\r\n")
      #expect(received.hasPrefix("HTTP/1.1 200"))
      #expect(received.contains("first"))
      // The chunked body's last chunk: the response ended.
      #expect(received.hasSuffix("\r\n0\r\n\r\n"), "\(received.suffix(40))")
      // And the connection answers its next request.
      #expect(
        connection.send(
          "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            + "X-Test-Key: \(Self.key)\r\n\r\n"))
      var next = ""
      try await Self.read(connection, into: &next, until: "hello")
      #expect(next.hasPrefix("HTTP/1.1 200"))
      for _ in 0..<500 where logs.handledRequests(route: "/unended") == 0 {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(logs.handledRequests(route: "/unended", status: 200, outcome: "ok") == 1)
    }
  }

  @Test func aHandlerThatThrowsAfterAskingForAStreamedLineIsLoggedOnce() async throws {
    let logs = LogCapture()
    let metrics = TestMetrics()
    try await Self.withServer(logs: logs, metrics: metrics) { port in
      #expect(try await Self.get("/stream-thrown", port: port) == 500)
      #expect(logs.handledRequests(route: "/stream-thrown") == 1)
      #expect(
        logs.handledRequests(route: "/stream-thrown", status: 500, outcome: "status_500") == 1)
      let counter = try metrics.expectCounter(
        "test_requests_total",
        [("route", "/stream-thrown"), ("status", "5xx"), ("outcome", "status_500")])
      #expect(counter.totalValue == 1)
      #expect(metrics.counters.map(\.totalValue).reduce(0, +) == 1)
    }
  }
}
