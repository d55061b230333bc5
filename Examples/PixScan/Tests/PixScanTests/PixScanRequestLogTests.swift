import DexExamplesTestSupport
import Foundation
import MetricsTestKit
import PixScanCore
import Testing

/// Every request PixScan answers is logged and counted exactly once by the shared request log
/// (a page, a guarded listing, a refusal, a path no route has), and its token, sent in the
/// header and in the query, reaches neither the log nor a metric label.
@Suite("PixScan's request log")
struct PixScanRequestLogTests {
  /// Sends `GET target` as is (with the token when `token`) and returns the status.
  static func status(port: Int, _ target: String, token: Bool) async throws -> Int? {
    var head = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    if token { head += "X-PixScan-Token: \(PixScanHTTPTests.token.value)\r\n" }
    return try await RawConnection.status(answering: head + "\r\n", port: port)
  }

  @Test func everyRequestIsLoggedAndCountedOnceWithoutItsToken() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let logs = LogCapture()
    let metrics = TestMetrics()
    let secret = PixScanHTTPTests.token.value
    try await PixScanHTTPTests.withServerAndPort(
      folder, trash: data.file("Trash"), logger: logs.logger("dexkit.pixscan"), metrics: metrics
    ) { _, port in
      // route, status, outcome of each request, in order.
      let requests: [(target: String, token: Bool, route: String, status: Int, outcome: String)] =
        [
          ("/", false, "/", 200, "ok"),
          ("/api/photos?token=\(secret)", true, "/api/photos", 200, "ok"),
          ("/api/photos", false, "/api/photos", 403, "forbidden"),
          ("/no-such-route/\(secret)?key=\(secret)", true, "NotFound", 404, "not_found"),
        ]
      for request in requests {
        let status = try await Self.status(port: port, request.target, token: request.token)
        #expect(status == request.status, "\(request.route)")
      }
      #expect(logs.handledRequests.count == requests.count)
      for request in requests {
        let lines = logs.handledRequests(
          route: request.route, status: request.status, outcome: request.outcome)
        #expect(lines == 1, "\(request.route) \(request.status) logged \(lines) times")
        let counter = try metrics.expectCounter(
          PixScanServer.MetricName.requests,
          [
            ("route", request.route), ("status", "\(request.status / 100)xx"),
            ("outcome", request.outcome),
          ])
        #expect(counter.totalValue == 1, "\(request.route) counted \(counter.totalValue) times")
      }
      #expect(metrics.counters.map(\.totalValue).reduce(0, +) == Int64(requests.count))
      #expect(metrics.timers.count == 3)  // one per route pattern: /, /api/photos, NotFound
      let labels = (metrics.counters.flatMap(\.dimensions) + metrics.timers.flatMap(\.dimensions))
        .map { "\($0.0)=\($0.1)" }
      for text in logs.lines + labels {
        #expect(!text.contains(secret), "the token reached \(text.prefix(40))…")
        #expect(!text.contains("no-such-route"), "a raw path reached \(text.prefix(40))…")
      }
    }
  }
}
