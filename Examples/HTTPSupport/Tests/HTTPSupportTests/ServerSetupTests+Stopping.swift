import DexExamplesTestSupport
import HTTPSupport
import Hummingbird
import Logging
import MetricsTestKit
import Testing

/// The executables' graceful stop has an end: a request still open when the grace period is
/// over is cancelled and the server's group returns, instead of waiting for the request.
extension ServerSetupTests {
  @Test func aGracefulStopCancelsARequestStillOpenAfterTheGracePeriod() async throws {
    let (ports, portKnown) = AsyncStream.makeStream(of: Int.self)
    let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
    var quiet = Logger(label: "setup-test.stopping")
    quiet.logLevel = .critical
    let app = ServerSetup.application(
      ServerSettings(name: "setup-test", host: "127.0.0.1", port: 0, readTimeout: .seconds(600)),
      context: BasicRequestContext.self,
      requestLog: RequestLogMiddleware<BasicRequestContext>(
        metrics: RequestMetrics(
          requests: "stop_requests_total", duration: "stop_request_duration_seconds",
          factory: TestMetrics())),
      routes: { router in
        // A request that would outlast any patience: an hour, unless cancelled.
        router.get("/wait") { _, _ -> String in
          arrived.yield()
          try await Task.sleep(for: .seconds(3600))
          return "waited"
        }
      },
      logger: quiet,
      onServerRunning: { port in
        portKnown.yield(port)
        portKnown.finish()
      })
    let group = ServerSetup.serviceGroup(running: app, gracePeriod: .seconds(1), signals: [])
    let (ends, ended) = AsyncStream.makeStream(of: Void.self)
    let serving = Task {
      _ = try? await group.run()
      ended.yield()
      ended.finish()
    }
    var port = 0
    for await value in ports { port = value }
    try #require(port > 0)
    let connection = try RawConnection(port: port)
    defer { connection.close() }
    #expect(
      connection.send(
        "GET /wait HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"))
    for await _ in arrivals { break }

    await group.triggerGracefulShutdown()
    // The group ends about a second later; two minutes is only the test's own patience.
    let endedInTime = await withTaskGroup(of: Bool.self) { race in
      race.addTask {
        for await _ in ends { return true }
        return true
      }
      race.addTask {
        try? await Task.sleep(for: .seconds(120))
        return false
      }
      let first = await race.next() ?? false
      race.cancelAll()
      return first
    }
    #expect(endedInTime, "the server still waited for its request two minutes after the stop")
    if !endedInTime { serving.cancel() }
  }
}
