import DexExamplesTestSupport
import DexProxyTesting
import Foundation
import HTTPSupport
import Hummingbird
import Logging
import MetricsTestKit
import NIOCore
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A client that stops reading a response cannot hold its handler: once the response fills the
/// connection's buffers, the client must take some of it within the read timeout, or the
/// connection is closed and the handler's waiting write fails; a slow client that keeps reading
/// gets the whole response.
@Suite struct WriteStallTests {
  /// How the flood's handler ended.
  final class Flood: Sendable {
    let bytesWritten = Atomic(0)
    let writeFailed = Atomic(false)
    let finished = Atomic(false)
  }

  static let floodBytes = 64 << 20  // far past any socket buffer on loopback
  static let bigBytes = 16 << 20

  /// Runs a server with `readTimeout` and two routes: `GET /flood` writes
  /// ``floodBytes`` in 64 KiB pieces (recording into `flood`), `GET /big` writes ``bigBytes``
  /// as one buffer (as a photo or a thumbnail is written).
  static func withServer(
    _ flood: Flood, readTimeout: Duration = .seconds(1),
    _ body: (_ port: Int) async throws -> Void
  ) async throws {
    let chunk = ByteBuffer(repeating: 0x61, count: 64 << 10)
    let big = ByteBuffer(repeating: 0x62, count: bigBytes)
    let logs = LogCapture()
    let server = try await LoopbackServer.start { onServerRunning in
      ServerSetup.application(
        ServerSettings(
          name: "stall-test", host: "127.0.0.1", port: 0, readTimeout: readTimeout),
        context: BasicRequestContext.self,
        requestLog: RequestLogMiddleware<BasicRequestContext>(
          metrics: RequestMetrics(
            requests: "stall_requests_total", duration: "stall_request_duration_seconds",
            factory: TestMetrics())),
        routes: { router in
          router.get("/flood") { _, _ in
            var headers = HTTPFields()
            headers[.contentLength] = String(floodBytes)
            return Response(
              status: .ok, headers: headers,
              body: ResponseBody { writer in
                do {
                  while flood.bytesWritten.load(ordering: .relaxed) < floodBytes {
                    try await writer.write(chunk)
                    flood.bytesWritten.add(chunk.readableBytes, ordering: .relaxed)
                  }
                  try await writer.finish(nil)
                  flood.finished.store(true, ordering: .relaxed)
                } catch {
                  flood.writeFailed.store(true, ordering: .relaxed)
                  throw error
                }
              })
          }
          router.get("/big") { _, _ in
            Response(status: .ok, body: .init(byteBuffer: big))
          }
        },
        logger: logs.logger("stall-test"), onServerRunning: onServerRunning)
    }
    do {
      try await body(server.port)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  /// Everything `connection` receives until it closes or times out: the byte count, and whether
  /// it closed; `pause` seconds between reads. On a thread of its own, so that a loaded test
  /// run's cooperative pool cannot stop it reading for longer than it means to.
  static func readAll(
    _ connection: RawConnection, pause: Double = 0
  ) async throws -> (bytes: Int, closed: Bool) {
    try await offThePool {
      var received = 0
      while true {
        switch connection.read() {
        case .bytes(let bytes): received += bytes.count
        case .closed: return (received, true)
        case .timedOut: return (received, false)
        }
        if pause > 0 { Thread.sleep(forTimeInterval: pause) }
      }
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aClientThatStopsReadingIsClosedAfterTheReadTimeout() async throws {
    let flood = Flood()
    try await Self.withServer(flood) { port in
      let client = try RawConnection(port: port)
      defer { client.close() }
      #expect(client.send("GET /flood HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
      // The client reads nothing for 4 s: the response fills the buffers (the channel turns
      // unwritable), and 1 s later the connection is closed.
      try await Task.sleep(for: .seconds(4))
      // What the buffers held is still delivered, then the close, well short of the whole.
      let (received, closed) = try await Self.readAll(client)
      #expect(closed, "the connection is still open")
      #expect(
        received > 0 && received < Self.floodBytes, "received \(received) of \(Self.floodBytes)")
      // The handler is not left waiting: its write failed with the close (or, where the
      // writer buffered the rest before it saw the channel fill, it had already returned).
      let deadline = ContinuousClock.now + .seconds(20)
      while !flood.writeFailed.load(ordering: .relaxed), !flood.finished.load(ordering: .relaxed),
        ContinuousClock.now < deadline
      {
        try await Task.sleep(for: .milliseconds(50))
      }
      let failed = flood.writeFailed.load(ordering: .relaxed)
      let finished = flood.finished.load(ordering: .relaxed)
      #expect(failed || finished, "the handler still waits on its write")
    }
  }

  /// A client that reads a 16 MiB response slowly but steadily (at most 64 KiB every 40 ms,
  /// about 10 s in all, the buffers full all along) gets all of it: the 4 s deadline runs again
  /// whenever it takes some.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aSlowClientThatKeepsReadingGetsTheWholeResponse() async throws {
    try await Self.withServer(Flood(), readTimeout: .seconds(4)) { port in
      let client = try RawConnection(port: port)
      defer { client.close() }
      #expect(
        client.send("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
      let (received, closed) = try await Self.readAll(client, pause: 0.04)
      #expect(closed)
      #expect(received > Self.bigBytes, "received \(received) of \(Self.bigBytes) and headers")
    }
  }
}
