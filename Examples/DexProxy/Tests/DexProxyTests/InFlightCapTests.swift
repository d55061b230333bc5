import DexCloud
import DexExamplesTestSupport
import DexProxy
import DexProxyTesting
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The caps that keep anyone from holding every `/vision` slot or buffering without bound: one
/// session sent from many addresses meets the session's cap, and bodies declared large meet the
/// budget of body bytes in flight before a byte of them is read.
@Suite struct InFlightCapTests {
  /// One session sent from two addresses (behind a trusted balancer): past the session's cap
  /// its requests are busy from any address, while another session from the same address is
  /// still worked on.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func oneSessionCannotHoldEverySlotFromManyAddresses() async throws {
    try await ProxyHarness.with(configure: {
      $0.maximumInFlight = 10
      $0.maximumInFlightPerAddress = 8
      $0.maximumInFlightPerSession = 1
      $0.upstream.timeout = .seconds(30)
      $0.trustedProxies = TrustedProxies("127.0.0.1") ?? .none
    }) { proxy in
      proxy.upstream.enqueue(.slow(.seconds(6), .content(StubUpstream.cleanJSON)))
      let spread = try await proxy.rawSession(subject: "spread", forwardedFor: "198.51.100.7")
      let other = try await proxy.rawSession(subject: "other", forwardedFor: "198.51.100.8")
      func send(
        _ question: String, as session: AuthTokenResponse, from address: String
      ) async throws -> TransportResponse {
        let body = try visionBody(question)
        var headers = ProxyHarness.signed(
          "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)
        headers["X-Forwarded-For"] = address
        return try await proxy.send("POST", "/vision", headers: headers, body: body)
      }
      let slow = Task { try await send("slow", as: spread, from: "203.0.113.9") }
      let deadline = ContinuousClock.now + .seconds(10)
      while proxy.upstream.received.isEmpty, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
      }
      let busy = try await send("from elsewhere", as: spread, from: "192.0.2.40")
      #expect(busy.statusCode == 503)
      #expect(errorCode(busy.body) == "busy")
      #expect(try await send("another session", as: other, from: "192.0.2.40").statusCode == 200)
      #expect(try await slow.value.statusCode == 200)
      // The slot is given back: the session is served again.
      #expect(try await send("after", as: spread, from: "192.0.2.40").statusCode == 200)
    }
  }

  /// A streamed reply holds its session's count until the stream ends, then gives it back: with
  /// a cap of one, the session's next call is served.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aStreamedReplyGivesItsSessionCountBack() async throws {
    try await ProxyHarness.with(configure: { $0.maximumInFlightPerSession = 1 }) { proxy in
      proxy.upstream.enqueue(.stream(["{\"commonName\": \"Fox\", ", "\"category\": \"animal\"}"]))
      let session = try await proxy.rawSession(subject: "streamer")
      for round in 0..<2 {
        let body = try JSONEncoder().encode(
          VisionRequest.identify(
            image: sampleImage.base64EncodedString(), categoryHint: nil, stream: round == 0))
        let response = try await proxy.sendVision(
          body, secret: session.sessionSecret, session: session.sessionID)
        #expect(response.statusCode == 200, "round \(round): \(errorCode(response.body) ?? "")")
      }
    }
  }

  /// A connection that declares a 200 KiB body and sends none of it holds that many bytes of
  /// the budget: a 150 KiB body from another address is busy at once, a small one is worked on.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func declaredBodiesMeetTheByteBudgetBeforeTheyAreRead() async throws {
    try await ProxyHarness.with(configure: {
      $0.maximumBodyBytes = 256 << 10
      $0.maximumBodyBytesInFlight = 300 << 10
      $0.trustedProxies = TrustedProxies("127.0.0.1") ?? .none
    }) { proxy in
      let session = try await proxy.rawSession(subject: "holder", forwardedFor: "198.51.100.1")
      let (holder, busy) = try await Self.largeBodyWhileHeld(
        proxy, session: session, holderAddress: "198.51.100.1", senderAddress: "198.51.100.2")
      defer { holder?.close() }
      #expect(busy.map { errorCode($0.body) } == "busy")
      #expect(busy?.value(forHeader: "Retry-After") == "1")
      let small = try await Self.send(
        proxy, try visionBody("small"), session: session, from: "198.51.100.2")
      #expect(small.statusCode == 200, "\(errorCode(small.body) ?? "")")
      #expect(holder.map(Self.hasAnswer) == false, "the holder was answered early")
    }
  }

  /// One address declares at most its share of the bytes (8 of 32 slots of 1 MiB: 256 KiB, one
  /// largest body): its own second large body is busy while another address's is worked on.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func oneAddressDeclaresAtMostItsShareOfTheBytes() async throws {
    try await ProxyHarness.with(configure: {
      $0.maximumBodyBytes = 256 << 10
      $0.maximumBodyBytesInFlight = 1 << 20
      $0.maximumInFlight = 32
      $0.trustedProxies = TrustedProxies("127.0.0.1") ?? .none
    }) { proxy in
      let session = try await proxy.rawSession(subject: "share", forwardedFor: "198.51.100.1")
      let (holder, busy) = try await Self.largeBodyWhileHeld(
        proxy, session: session, holderAddress: "198.51.100.1", senderAddress: "198.51.100.1")
      defer { holder?.close() }
      #expect(busy.map { errorCode($0.body) } == "busy")
      let elsewhere = try await Self.send(
        proxy, try Self.largeBody(), session: session, from: "198.51.100.2")
      #expect(elsewhere.statusCode == 200, "\(errorCode(elsewhere.body) ?? "")")
    }
  }

  /// Someone who saw a session's id but has not its secret opens requests with it, forged
  /// signatures and large declared bodies, and sends none: the session's own calls are still
  /// worked on (its cap counts only calls whose signature verified).
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aSessionIdAloneCannotLockItsSessionOut() async throws {
    try await ProxyHarness.with(configure: { $0.maximumInFlightPerSession = 1 }) { proxy in
      let victim = try await proxy.rawSession(subject: "victim")
      let forger = SigningSecret("someone-else-s-secret-0123456789abcdef")!
      var holders: [RawConnection] = []
      defer { for holder in holders { holder.close() } }
      for _ in 0..<3 {
        let signing = ProxyHarness.signed(
          "/vision", body: Data(count: 100_000), secret: forger, session: victim.sessionID
        ).map { "\($0.key): \($0.value)\r\n" }.joined()
        let holder = try RawConnection(port: proxy.port)
        #expect(
          holder.send(
            "POST /vision HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              + "Content-Length: 100000\r\n" + signing + "\r\n"))
        holders.append(holder)
      }
      try await Task.sleep(for: .milliseconds(500))
      #expect(holders.allSatisfy { !Self.hasAnswer($0) }, "a forged request was answered early")
      let response = try await proxy.sendVision(
        try visionBody("mine"), secret: victim.sessionSecret, session: victim.sessionID)
      #expect(response.statusCode == 200, "\(errorCode(response.body) ?? "")")
    }
  }

  /// A `/vision` body of about 150 KiB (a distinct question each time).
  static func largeBody() throws -> Data {
    try JSONEncoder().encode(
      VisionRequest.ask(
        image: Data(repeating: 0x5A, count: 110 << 10).base64EncodedString(),
        question: "large \(UUID())"))
  }

  /// `body` signed under `session`, sent as from `address` (behind the trusted 127.0.0.1).
  static func send(
    _ proxy: ProxyHarness, _ body: Data, session: AuthTokenResponse, from address: String
  ) async throws -> TransportResponse {
    var headers = ProxyHarness.signed(
      "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)
    headers["X-Forwarded-For"] = address
    return try await proxy.send("POST", "/vision", headers: headers, body: body)
  }

  /// Opens a request from `holderAddress` that declares 200 KiB and sends none of it, then
  /// sends a ``largeBody()`` from `senderAddress`, until that one is busy (at most 20 times):
  /// the holder is admitted once the proxy has read its headers, and a large body sent before
  /// that fits and is served (a holder that came while one was read is refused and answered),
  /// so the two are tried again until the holder is waiting on its body. The open holder and
  /// the busy answer (`nil` if none came).
  static func largeBodyWhileHeld(
    _ proxy: ProxyHarness, session: AuthTokenResponse, holderAddress: String,
    senderAddress: String
  ) async throws -> (holder: RawConnection?, busy: TransportResponse?) {
    let promised = Data(repeating: 0x20, count: 200 << 10)
    #expect(try largeBody().count > 100 << 10 && largeBody().count < 256 << 10)
    var holder: RawConnection?
    for _ in 0..<20 {
      holder?.close()
      let signing = ProxyHarness.signed(
        "/vision", body: promised, secret: session.sessionSecret, session: session.sessionID
      ).map { "\($0.key): \($0.value)\r\n" }.joined()
      let candidate = try RawConnection(port: proxy.port)
      holder = candidate
      _ = candidate.send(
        "POST /vision HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "X-Forwarded-For: \(holderAddress)\r\nContent-Length: \(promised.count)\r\n"
          + signing + "\r\n")
      try await Task.sleep(for: .milliseconds(300))
      guard !hasAnswer(candidate) else { continue }
      let response = try await send(proxy, try largeBody(), session: session, from: senderAddress)
      if response.statusCode == 503 { return (holder, response) }
      #expect(response.statusCode == 200, "\(errorCode(response.body) ?? "")")
    }
    return (holder, nil)
  }

  /// Whether `connection` has something to read (an answer, or its close).
  static func hasAnswer(_ connection: RawConnection) -> Bool {
    var entry = pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) > 0
  }

  /// A configuration built in code has every cap the environment's has: the hourly sessions,
  /// the per-session cap and the byte budget.
  @Test func aConfigurationBuiltInCodeHasEveryCap() throws {
    let environment = try ProxyConfiguration.fromEnvironment(minimalEnvironment)
    let code = ProxyConfiguration(
      bootstrapKeys: environment.bootstrapKeys, keyring: environment.keyring,
      upstream: environment.upstream)
    #expect(code.sessionsPerAddressPerHour == ProxyConfiguration.defaultSessionsPerAddressPerHour)
    #expect(environment.sessionsPerAddressPerHour == 60)
    #expect(code.maximumInFlightPerSession == 4 && environment.maximumInFlightPerSession == 4)
    #expect(code.maximumBodyBytesInFlight == 512 << 20)
    #expect(environment.maximumBodyBytesInFlight == 512 << 20)
    #expect(code.dailyQuota != nil && code.addressDailyQuota != nil && code.dailyBudget != nil)

    var set = minimalEnvironment
    set["DEX_PROXY_MAX_IN_FLIGHT_PER_SESSION"] = "2"
    set["DEX_PROXY_MAX_BODY_BYTES_IN_FLIGHT"] = "\(64 << 20)"
    let read = try ProxyConfiguration.fromEnvironment(set)
    #expect(read.maximumInFlightPerSession == 2)
    #expect(read.maximumBodyBytesInFlight == 64 << 20)
    // A budget smaller than one largest body would refuse every such body: refused when read.
    var small = minimalEnvironment
    small["DEX_PROXY_MAX_BODY_BYTES_IN_FLIGHT"] = "\(1 << 20)"
    #expect(throws: ProxyConfigurationError.self) {
      try ProxyConfiguration.fromEnvironment(small)
    }
  }
}
