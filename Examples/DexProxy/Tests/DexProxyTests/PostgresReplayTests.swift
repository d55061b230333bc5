import Crypto
import DexCloud
import DexExamplesTestSupport
import DexProxy
import DexProxyTesting
import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL the tests share: its URL from `DEX_TEST_POSTGRES_URL` (printed by
/// `Scripts/postgres.sh start`), and that script to stop and restart it.
///
/// Locally the tests that need it are skipped when the variable is unset; under CI (`CI=true`)
/// they run and fail, so a CI run without a database cannot pass silently.
enum TestPostgres {
  static let environment = ProcessInfo.processInfo.environment
  static let url = environment["DEX_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
  static let inCI = environment["CI"] == "true"
  /// Run when there is a database, and always under CI.
  static let enabled = url != nil || inCI
  static let skipReason: Comment =
    "DEX_TEST_POSTGRES_URL is not set: run `export DEX_TEST_POSTGRES_URL=$(Scripts/postgres.sh start)`"

  struct Missing: Error, CustomStringConvertible {
    var description: String {
      "CI=true but DEX_TEST_POSTGRES_URL is not set: Scripts/test.sh must start Scripts/postgres.sh"
    }
  }

  /// The store configuration, with short timeouts so outages show quickly.
  static func configuration() throws -> PostgresStoreConfiguration {
    guard let url else { throw Missing() }
    var configuration = try PostgresStoreConfiguration(url: url)
    configuration.operationTimeout = .seconds(2)
    configuration.sweepInterval = .seconds(1)
    return configuration
  }

  /// The database password, which must never show up in logs or responses.
  static func password() throws -> String {
    try #require(try configuration().password)
  }

  /// Runs `Scripts/postgres.sh verb` (`pause` or `resume`) and waits for it.
  static func control(_ verb: String) async throws {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    // Longer than the script's own 60 s wait for the server; in a task of its own, so that a
    // cancelled test still resumes the server it paused.
    let run = try await Task {
      try await ChildProcess.run(
        URL(fileURLWithPath: "/bin/bash"),
        arguments: [root.appendingPathComponent("Scripts/postgres.sh").path, verb],
        timeLimit: .seconds(150))
    }.value
    guard run.status == 0, !run.killedBySignal else {
      throw ControlFailed(
        verb: verb, standardError: String(decoding: run.standardError.suffix(2000), as: UTF8.self))
    }
  }

  struct ControlFailed: Error {
    var verb: String
    var standardError: String
  }
}

/// Two proxy instances sharing one real PostgreSQL: replays refused across instances, a
/// session's rate limit and a subject's daily quota held across them, and a database outage answered with 503s, never with an unchecked request, then recovered.
///
/// Serialized because one test stops the shared server.
@Suite(.serialized, .enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct PostgresReplayTests {
  /// A fresh `/vision` body (its prompt made unique) and its signing headers under `session`.
  private func signedVision(
    _ prompt: String, _ session: AuthTokenResponse
  ) throws -> (body: Data, headers: [String: String]) {
    let body = try visionBody("\(prompt) \(UUID())")
    return (
      body,
      ProxyHarness.signed(
        "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)
    )
  }

  /// Sends `count` fresh `/vision` requests under `session`, alternating between `proxies`;
  /// checks every 429 has `code` and a `Retry-After` of at least 1 s; returns the statuses.
  private func alternate(
    _ count: Int, on proxies: [ProxyHarness], session: AuthTokenResponse, refusal code: String
  ) async throws -> [Int] {
    var statuses: [Int] = []
    for index in 0..<count {
      let request = try signedVision("alternating \(index)", session)
      let response = try await proxies[index % proxies.count].send(
        "POST", "/vision", headers: request.headers, body: request.body)
      statuses.append(response.statusCode)
      if response.statusCode == 429 {
        #expect(errorCode(response.body) == code)
        #expect((Int(response.value(forHeader: "Retry-After") ?? "") ?? 0) >= 1)
      }
    }
    return statuses
  }

  /// A session for a subject of its own, so that earlier runs on the same database do not
  /// count against its quota.
  @available(macOS 14, iOS 17, tvOS 17, *)
  private func freshSubjectSession(on proxy: ProxyHarness) async throws -> AuthTokenResponse {
    let body = try JSONEncoder().encode(
      AuthTokenRequest(subject: "subject-\(UUID().uuidString.prefix(8))"))
    let token = try await proxy.send(
      "POST", "/auth_token",
      headers: ProxyHarness.signed("/auth_token", body: body, secret: ProxyHarness.bootstrapKey),
      body: body)
    try #require(token.statusCode == 200)
    return try JSONDecoder().decode(AuthTokenResponse.self, from: token.body)
  }

  /// Two proxies on the test database, with `configure` applied on top.
  private func withCluster<T: Sendable>(
    configure: @escaping @Sendable (inout ProxyConfiguration) -> Void,
    _ body: ([ProxyHarness]) async throws -> T
  ) async throws -> T {
    let store = try TestPostgres.configuration()
    // Each cluster's requests come from an address of their own (through 127.0.0.1 as a
    // trusted balancer): the shared per-address buckets outlive a test.
    return try await ProxyHarness.cluster(
      count: 2,
      configure: {
        $0.postgres = store
        $0.trustedProxies = TrustedProxies("127.0.0.1/32") ?? .none
        configure(&$0)
      }, forwardedFor: Self.freshAddress(), body)
  }

  private func withCluster<T: Sendable>(
    _ body: ([ProxyHarness]) async throws -> T
  ) async throws -> T {
    try await withCluster(configure: { _ in }, body)
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func requestAcceptedByOneInstanceIsRefusedByTheOther() async throws {
    try await withCluster { proxies in
      let (a, b) = (proxies[0], proxies[1])
      let request = try signedVision("shared replay", try await a.rawSession())
      let first = try await a.send("POST", "/vision", headers: request.headers, body: request.body)
      #expect(first.statusCode == 200)
      expectReplayed(
        try await b.send("POST", "/vision", headers: request.headers, body: request.body))
      expectReplayed(
        try await a.send("POST", "/vision", headers: request.headers, body: request.body))

      // The other way round, through the session B issued.
      let other = try signedVision("the other way", try await b.rawSession())
      let second = try await b.send("POST", "/vision", headers: other.headers, body: other.body)
      #expect(second.statusCode == 200)
      expectReplayed(try await a.send("POST", "/vision", headers: other.headers, body: other.body))
      #expect(a.upstream.received.count == 2)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func simultaneousCopiesOnBothInstancesAreAcceptedOnce() async throws {
    try await withCluster { proxies in
      let session = try await proxies[0].rawSession()
      for round in 0..<20 {
        let request = try signedVision("race \(round)", session)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
          for proxy in proxies + proxies {
            group.addTask {
              try await proxy.send(
                "POST", "/vision", headers: request.headers, body: request.body
              ).statusCode
            }
          }
          return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.sorted() == [200, 401, 401, 401], "round \(round)")
      }
      #expect(proxies[0].upstream.received.count == 20)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aSessionsRateLimitHoldsAcrossInstances() async throws {
    try await withCluster(configure: { $0.rateLimit = RateLimit(burst: 4, refillPerSecond: 0.01) })
    {
      proxies in
      let session = try await proxies[0].rawSession()
      // From a new address each time, so that only the session's shared bucket binds.
      var statuses: [Int] = []
      for index in 0..<6 {
        var request = try signedVision("session bucket \(index)", session)
        request.headers["X-Forwarded-For"] = Self.freshAddress()
        let response = try await proxies[index % 2].send(
          "POST", "/vision", headers: request.headers, body: request.body)
        statuses.append(response.statusCode)
      }
      // Each instance alone would allow 4: together they allow 4.
      #expect(statuses == [200, 200, 200, 200, 429, 429])
      #expect(proxies[0].upstream.received.count == 4)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func theDailyQuotaHoldsAcrossInstances() async throws {
    try await withCluster(configure: { $0.dailyQuota = 3 }) { proxies in
      let session = try await freshSubjectSession(on: proxies[1])
      let statuses = try await alternate(
        5, on: proxies, session: session, refusal: "quota_exceeded")
      // Each instance alone would allow 3: together they allow 3.
      #expect(statuses == [200, 200, 200, 429, 429])
      #expect(proxies[0].upstream.received.count == 3)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aFailedUpstreamCallIsRefundedAcrossInstances() async throws {
    try await withCluster(configure: { $0.dailyQuota = 1 }) { proxies in
      let session = try await freshSubjectSession(on: proxies[0])
      proxies[0].upstream.enqueue(.status(500))
      // 502 on A (refunded in the shared count), 200 on B, then the quota is spent on A.
      let statuses = try await alternate(
        3, on: proxies, session: session, refusal: "quota_exceeded")
      #expect(statuses == [502, 200, 429])
    }
  }

  /// The metrics of the instance that refused a replay accepted by the other one, and the
  /// store's latency histogram, per operation.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aRefusedReplayAndTheStoreShowInMetrics() async throws {
    try await withCluster(configure: { $0.servesMetrics = true }) { proxies in
      let (a, b) = (proxies[0], proxies[1])
      let request = try signedVision("metrics replay", try await a.rawSession())
      let first = try await a.send("POST", "/vision", headers: request.headers, body: request.body)
      #expect(first.statusCode == 200)
      expectReplayed(
        try await b.send("POST", "/vision", headers: request.headers, body: request.body))
      let scrapeA = try await a.scrape()
      let scrapeB = try await b.scrape()
      #expect(scrapeB.requests(route: "/vision", outcome: "replayed_request") == 1)
      #expect(scrapeA.requests(route: "/vision", outcome: "replayed_request") == nil)
      #expect(scrapeA.requests(route: "/vision", outcome: "ok") == 1)
      let duration = ProxyMetrics.Name.storeDuration
      // A: the bootstrap request and the accepted one; B: the refused replay.
      #expect(scrapeA.value("\(duration)_count", ["operation": "insert"]) == 2)
      #expect(scrapeB.value("\(duration)_count", ["operation": "insert"]) == 1)
      #expect(scrapeB.value("\(duration)_bucket", ["operation": "insert", "le": "+Inf"]) == 1)
      #expect(scrapeB.value(ProxyMetrics.Name.storeErrors, [:]) == nil)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func databaseOutageFailsClosedAndRecoversWithoutRestart() async throws {
    let password = try TestPostgres.password()
    try await withCluster(configure: { $0.servesMetrics = true }) { proxies in
      let (a, b) = (proxies[0], proxies[1])
      let session = try await a.rawSession()
      let accepted = try signedVision("before the outage", session)
      let first = try await a.send(
        "POST", "/vision", headers: accepted.headers, body: accepted.body)
      #expect(first.statusCode == 200)
      for proxy in proxies {
        #expect(try await proxy.send("GET", "/health").statusCode == 200)
      }

      do {
        // Inside: a pause that fails half done is resumed too (resuming a running server is
        // harmless).
        try await TestPostgres.control("pause")
        // A fresh request, a replay of the accepted one and a new session: refused by both
        // instances, never accepted unchecked.
        for proxy in proxies {
          let fresh = try signedVision("during the outage", session)
          let response = try await proxy.send(
            "POST", "/vision", headers: fresh.headers, body: fresh.body)
          #expect(response.statusCode == 503)
          #expect(errorCode(response.body) == "replay_store_unavailable")
          #expect(response.value(forHeader: "Retry-After") == "1")
          let replay = try await proxy.send(
            "POST", "/vision", headers: accepted.headers, body: accepted.body)
          #expect(replay.statusCode == 503)
          #expect(errorCode(replay.body) == "replay_store_unavailable")
          let health = try await proxy.send("GET", "/health")
          #expect(health.statusCode == 503)
          #expect(String(decoding: health.body, as: UTF8.self).contains("degraded"))
          let subject = Data(#"{"subject":"x"}"#.utf8)
          let token = try await proxy.send(
            "POST", "/auth_token",
            headers: ProxyHarness.signed(
              "/auth_token", body: subject, secret: ProxyHarness.bootstrapKey),
            body: subject)
          #expect(token.statusCode == 503)
        }
      } catch {
        try? await TestPostgres.control("resume")
        throw error
      }
      try await TestPostgres.control("resume")

      // Both instances serve again by themselves (the pool reconnects).
      let deadline = ContinuousClock.now + .seconds(45)
      for proxy in proxies {
        var healthy = false
        while !healthy, ContinuousClock.now < deadline {
          healthy = try await proxy.send("GET", "/health").statusCode == 200
          if !healthy { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(healthy)
      }
      let after = try signedVision("after the outage", session)
      let served = try await b.send("POST", "/vision", headers: after.headers, body: after.body)
      #expect(served.statusCode == 200)
      // The row recorded before the outage survived it: the replay is still refused.
      expectReplayed(
        try await b.send("POST", "/vision", headers: accepted.headers, body: accepted.body))
      #expect(a.upstream.received.count == 2)

      for proxy in proxies {
        #expect(!proxy.logs.lines.joined(separator: "\n").contains(password))
        #expect(proxy.logs.lines.contains { $0.contains("Replay store unavailable") })
        // The tables were set up once per instance: the failed queries re-ran no DDL.
        let scrape = try await proxy.scrape()
        #expect(scrape.value(ProxyMetrics.Name.migrations, [:]) == 1)
        #expect((scrape.value(ProxyMetrics.Name.storeErrors, ["operation": "insert"]) ?? 0) >= 1)
      }
    }
  }

  @Test func expiredRowsAreDeletedAndTheirSignaturesCanBeRecordedAgain() async throws {
    let clock = TestClock()
    var configuration = try TestPostgres.configuration()
    configuration.sweepInterval = .seconds(3600)  // the test's own sweep is the one that counts
    let cache = PostgresSharedStore(
      configuration: configuration, logger: Logger(label: "test"), now: { clock.now })
    let service = Task { try await cache.run() }
    defer { service.cancel() }
    let signature = String(repeating: "ab", count: 32) + UUID().uuidString
    // Expired by the database's clock for longer than the sweep's margin: the sweep deletes it.
    let expiry = Date().addingTimeInterval(-Double(PostgresSharedStore.sweepMarginSeconds) - 1)
    #expect(try await cache.insertIfAbsent(signature, expiresAt: expiry))
    _ = try await cache.deleteExpired()  // this call's sweep, or the service's own just before
    // Seen by an instance a year behind, the expired row would still block the signature: it
    // is accepted only because the row is gone.
    clock.advance(by: -365 * 86_400)
    #expect(try await cache.insertIfAbsent(signature, expiresAt: clock.now), "the row was deleted")
    clock.advance(by: 365 * 86_400)
    #expect(try await cache.insertIfAbsent(signature, expiresAt: clock.now.addingTimeInterval(300)))
    #expect(
      try await !cache.insertIfAbsent(signature, expiresAt: clock.now.addingTimeInterval(300)))
    // An expired row that the sweep has not reached yet does not block the signature either.
    clock.advance(by: 301)
    #expect(try await cache.insertIfAbsent(signature, expiresAt: clock.now.addingTimeInterval(300)))
    #expect(await cache.isAvailable())
  }
}

extension PostgresReplayTests {
  /// An instance whose clock runs an hour ahead sweeps by the database's clock: a row another
  /// instance still relies on survives, and its replay stays refused.
  @Test func theSweepGoesByTheDatabaseClock() async throws {
    let ahead = TestClock()
    ahead.advance(by: 3600)
    let configuration = try TestPostgres.configuration()
    let skewed = PostgresSharedStore(
      configuration: configuration, logger: Logger(label: "test"), now: { ahead.now })
    let honest = PostgresSharedStore(configuration: configuration, logger: Logger(label: "test"))
    let services = [Task { try await skewed.run() }, Task { try await honest.run() }]
    defer { services.forEach { $0.cancel() } }
    let signature = String(repeating: "cd", count: 32) + UUID().uuidString
    let expiry = Date().addingTimeInterval(300)
    #expect(try await honest.insertIfAbsent(signature, expiresAt: expiry))
    _ = try await skewed.deleteExpired()
    #expect(try await !honest.insertIfAbsent(signature, expiresAt: expiry))
  }

  /// An instance whose clock runs 30 s behind the database's still accepts a timestamp 30 s
  /// after the database thinks its row expired: the sweep keeps the row for its margin, so a
  /// replay on that instance is still refused after a sweep.
  @Test func theSweepKeepsRowsAnInstanceBehindStillNeeds() async throws {
    let behind = TestClock()
    behind.advance(by: -30)
    let cache = PostgresSharedStore(
      configuration: try TestPostgres.configuration(), logger: Logger(label: "test"),
      now: { behind.now })
    let service = Task { try await cache.run() }
    defer { service.cancel() }
    let signature = String(repeating: "ef", count: 32) + UUID().uuidString
    // Expired 10 s ago by the database's clock, live for another 20 s by the instance's.
    let expiry = Date().addingTimeInterval(-10)
    #expect(try await cache.insertIfAbsent(signature, expiresAt: expiry))
    _ = try await cache.deleteExpired()
    #expect(try await !cache.insertIfAbsent(signature, expiresAt: expiry))
  }

  /// A client address behind the trusted balancer, new for every test run, so that the
  /// address budgets of earlier runs on the same database do not count.
  private static func freshAddress() -> String {
    "2001:db8:\(String(UInt16.random(in: 1...UInt16.max), radix: 16)):"
      + "\(String(UInt16.random(in: 1...UInt16.max), radix: 16))::1"
  }

  /// Minted subjects from one network, alternating between the two instances, meet the
  /// address quota counted in PostgreSQL; a neighbour in the same /64 shares it.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func mintedSubjectsMeetTheAddressQuotaAcrossInstances() async throws {
    let address = Self.freshAddress()
    let neighbour = address.replacingOccurrences(of: "::1", with: "::ffff:2")
    try await withCluster(configure: {
      $0.dailyQuota = 100
      $0.addressDailyQuota = 3
      $0.trustedProxies = TrustedProxies("127.0.0.1") ?? .none
    }) { proxies in
      var statuses: [Int] = []
      var codes: [String?] = []
      for index in 0..<5 {
        let proxy = proxies[index % 2]
        let session = try await freshSubjectSession(on: proxy)
        var request = try signedVision("address \(index)", session)
        request.headers["X-Forwarded-For"] = index == 4 ? neighbour : address
        let response = try await proxy.send(
          "POST", "/vision", headers: request.headers, body: request.body)
        statuses.append(response.statusCode)
        codes.append(errorCode(response.body))
      }
      #expect(statuses == [200, 200, 200, 429, 429])
      #expect(codes[3] == "address_quota_exceeded")
      #expect(codes[4] == "address_quota_exceeded")
    }
  }

  /// The global budget is one count in PostgreSQL for every instance, subject and address.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func theGlobalBudgetHoldsAcrossInstances() async throws {
    try await resetGlobalBudget()
    try await withCluster(configure: {
      $0.dailyBudget = 3
      $0.trustedProxies = TrustedProxies("127.0.0.1") ?? .none
    }) { proxies in
      var statuses: [Int] = []
      for index in 0..<5 {
        let proxy = proxies[index % 2]
        let session = try await freshSubjectSession(on: proxy)
        var request = try signedVision("global \(index)", session)
        request.headers["X-Forwarded-For"] = Self.freshAddress()
        let response = try await proxy.send(
          "POST", "/vision", headers: request.headers, body: request.body)
        statuses.append(response.statusCode)
        if response.statusCode == 429 {
          #expect(errorCode(response.body) == "daily_budget_exhausted")
        }
      }
      #expect(statuses == [200, 200, 200, 429, 429])
    }
    try await resetGlobalBudget()
  }

  /// Deletes the global count, which every run on the test database shares (after a probe
  /// through the cache, which creates the tables if this is the first test).
  private func resetGlobalBudget() async throws {
    let store = try TestPostgres.configuration()
    let cache = PostgresSharedStore(configuration: store, logger: Logger(label: "test"))
    let service = Task { try await cache.run() }
    defer { service.cancel() }
    #expect(await cache.isAvailable())
    let client = PostgresClient(
      configuration: .init(
        host: store.host, port: store.port, username: store.username, password: store.password,
        database: store.database, tls: .disable))
    let hash = ByteBuffer(bytes: SHA256.hash(data: Data("global".utf8)))
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      try await client.query("DELETE FROM dex_proxy_quota WHERE subject_hash = \(hash)")
      group.cancelAll()
    }
  }
}

/// A settable clock for the cache's expiry checks.
final class TestClock: @unchecked Sendable {
  private let lock = NSLock()
  private var current = Date()

  var now: Date { lock.withLock { current } }

  func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
