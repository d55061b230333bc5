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
/// connection's buffers, the client has the read timeout to read again, then the connection is
/// closed and the handler's waiting write fails.
@Suite struct WriteStallTests {
  /// How the flood's handler ended.
  final class Flood: Sendable {
    let bytesWritten = Atomic(0)
    let writeFailed = Atomic(false)
    let finished = Atomic(false)
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aClientThatStopsReadingIsClosedAfterTheReadTimeout() async throws {
    let flood = Flood()
    let chunk = ByteBuffer(repeating: 0x61, count: 64 << 10)
    let total = 64 << 20  // far past any socket buffer on loopback
    let logs = LogCapture()
    let server = try await LoopbackServer.start { onServerRunning in
      ServerSetup.application(
        ServerSettings(name: "stall-test", host: "127.0.0.1", port: 0, readTimeout: .seconds(1)),
        context: BasicRequestContext.self,
        requestLog: RequestLogMiddleware<BasicRequestContext>(
          metrics: RequestMetrics(
            requests: "stall_requests_total", duration: "stall_request_duration_seconds",
            factory: TestMetrics())),
        routes: { router in
          router.get("/flood") { _, _ in
            var headers = HTTPFields()
            headers[.contentLength] = String(total)
            return Response(
              status: .ok, headers: headers,
              body: ResponseBody { writer in
                do {
                  while flood.bytesWritten.load(ordering: .relaxed) < total {
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
        },
        logger: logs.logger("stall-test"), onServerRunning: onServerRunning)
    }
    do {
      let client = try RawConnection(port: server.port)
      defer { client.close() }
      #expect(client.send("GET /flood HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
      // The client reads nothing for 4 s: the response fills the buffers (the channel turns
      // unwritable), and 1 s later the connection is closed.
      try await Task.sleep(for: .seconds(4))
      // What the buffers held is still delivered, then the close, well short of the whole.
      var received = 0
      var closed = false
      reading: while true {
        switch client.read() {
        case .bytes(let bytes): received += bytes.count
        case .closed:
          closed = true
          break reading
        case .timedOut: break reading
        }
      }
      #expect(closed, "the connection is still open")
      #expect(received > 0 && received < total, "received \(received) of \(total) bytes")
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
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }
}
