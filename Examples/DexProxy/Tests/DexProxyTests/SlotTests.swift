import DexCloud
import DexExamplesTestSupport
import DexProxy
import DexProxyTesting
import Foundation
import Synchronization
import Testing

/// No slots for strangers: 1 000 connections from 125 loopback addresses trickle `/auth_token`
/// bodies signed with no valid key, and meanwhile a client holding a session is answered on
/// `/vision` and a new client is issued a session.
@Suite struct SlotTests {
  /// The trickling crowd: on a thread of its own, `count` connections spread over `addresses`
  /// source addresses (127.0.0.2 …), each sending `/auth_token` headers then one body byte per
  /// connection every 200 ms; a connection the proxy closes is opened again at once.
  final class Crowd: Sendable {
    let port: Int
    let count: Int
    let addresses: Int
    private let stopped = Atomic(false)
    /// Connections opened so far (reopened ones counted again).
    let opened = Atomic(0)
    /// Connections whose headers were sent and that are still open.
    let open = Atomic(0)
    /// Ends once ``run()`` has returned and closed every connection.
    private let finished: AsyncStream<Void>
    private let finish: AsyncStream<Void>.Continuation

    init(port: Int, count: Int, addresses: Int) {
      self.port = port
      self.count = count
      self.addresses = addresses
      (finished, finish) = AsyncStream.makeStream(of: Void.self)
    }

    /// Request headers signed with a key the proxy does not know, valid in shape and time, for
    /// a 400-byte body.
    static func head(port: Int) -> String {
      let body = Data(repeating: 0x20, count: 400)
      let signing = SignedHeaders.post(
        "/auth_token", body: body,
        secret: SigningSecret("not-the-bootstrap-key-0123456789abcdef")!
      ).map { "\($0.key): \($0.value)\r\n" }.joined()
      return "POST /auth_token HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        + "Content-Type: application/json\r\nContent-Length: 400\r\n" + signing + "\r\n"
    }

    func connect(_ index: Int) -> RawConnection? {
      let source = "127.0.0.\(index % addresses + 2)"
      guard let connection = try? RawConnection(port: port, source: source) else { return nil }
      guard connection.send(Self.head(port: port)) else {
        connection.close()
        return nil
      }
      opened.add(1, ordering: .relaxed)
      return connection
    }

    /// Runs until ``stopAndWait()``; no connection is opened once it is called.
    func run() {
      defer { finish.finish() }
      var connections: [RawConnection?] = (0..<count).map {
        stopped.load(ordering: .relaxed) ? nil : connect($0)
      }
      while !stopped.load(ordering: .relaxed) {
        open.store(connections.count { $0 != nil }, ordering: .relaxed)
        for index in connections.indices {
          // A stopping test stops its proxy next: a connection opened meanwhile would reach a
          // server that no longer hands connections to a handler.
          if stopped.load(ordering: .relaxed) { break }
          if let connection = connections[index],
            connection.send("{") == false || connection.isClosed(within: 0)
          {
            connection.close()
            connections[index] = nil
          }
          if connections[index] == nil { connections[index] = connect(index) }
        }
        Thread.sleep(forTimeInterval: 0.2)
      }
      for connection in connections { connection?.close() }
    }

    /// Stops the crowd and returns once every connection of it is closed.
    func stopAndWait() async {
      stopped.store(true, ordering: .relaxed)
      // In a task of its own: a cancelled test would end this wait at once, and its proxy
      // would stop under a live crowd.
      let finished = self.finished
      await Task { for await _ in finished {} }.value
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func tricklingStrangersHoldNoSlot() async throws {
    try await ProxyHarness.with { proxy in
      // The session is taken before the crowd arrives: a client that already has one.
      let session = try await proxy.rawSession(subject: "slot-holder")
      let crowd = Crowd(port: proxy.port, count: 1000, addresses: 125)
      let running = Thread { crowd.run() }
      running.start()
      do {
        try await holdSlots(proxy, session: session, crowd: crowd)
      } catch {
        await crowd.stopAndWait()
        throw error
      }
      // Before the proxy stops (when this closure returns).
      await crowd.stopAndWait()
    }
  }

  /// The test proper, while `crowd` trickles.
  @available(macOS 14, iOS 17, tvOS 17, *)
  func holdSlots(_ proxy: ProxyHarness, session: AuthTokenResponse, crowd: Crowd) async throws {
    // Wait (at most 60 s) until all 1 000 have sent their headers.
    let deadline = ContinuousClock.now + .seconds(60)
    while crowd.opened.load(ordering: .relaxed) < 1000, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(crowd.opened.load(ordering: .relaxed) >= 1000)
    try await Task.sleep(for: .seconds(1))
    #expect(crowd.open.load(ordering: .relaxed) >= 900, "the crowd is not holding on")

    // Each within 30 s: a bound on waiting (the transport's timeout), not a measure of speed;
    // a slot held by the crowd is answered at once with 503 `busy`, which the statuses catch
    // (5 s was close to what a loaded 2-core machine takes with 1 000 trickling connections).
    let body = try visionBody("while the crowd trickles")
    let vision = try await proxy.send(
      "POST", "/vision",
      headers: ProxyHarness.signed(
        "/vision", body: body, secret: session.sessionSecret, session: session.sessionID),
      body: body, timeout: .seconds(30))
    #expect(vision.statusCode == 200, "/vision: \(errorCode(vision.body) ?? "")")
    let request = try JSONEncoder().encode(AuthTokenRequest(subject: "newcomer"))
    let issued = try await proxy.send(
      "POST", "/auth_token",
      headers: ProxyHarness.signed(
        "/auth_token", body: request, secret: ProxyHarness.bootstrapKey),
      body: request, timeout: .seconds(30))
    #expect(issued.statusCode == 200, "/auth_token: \(errorCode(issued.body) ?? "")")
    #expect(crowd.open.load(ordering: .relaxed) >= 900, "the crowd stopped meanwhile")
  }
}
