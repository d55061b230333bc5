import DexCloud
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// `DEX_PROXY_DAILY_QUOTA` without PostgreSQL: the in-process count per subject and UTC day.
@Suite struct DailyQuotaTests {
  @Test func countsPerSubjectAndStartsAgainEachUTCDay() async throws {
    let quota = InMemoryDailyQuota()
    let day = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(try await quota.consume(subject: "a", on: day, limit: 2))
    #expect(try await quota.consume(subject: "a", on: day, limit: 2))
    #expect(try await !quota.consume(subject: "a", on: day, limit: 2))
    #expect(try await quota.consume(subject: "b", on: day, limit: 2))
    #expect(try await quota.consume(subject: "a", on: day.addingTimeInterval(86_400), limit: 2))
  }

  @Test func aRefundGivesBackOneCallOfThatDayOnly() async throws {
    let quota = InMemoryDailyQuota()
    let day = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(try await quota.consume(subject: "a", on: day, limit: 1))
    try await quota.refund(subject: "a", on: day)
    #expect(try await quota.consume(subject: "a", on: day, limit: 1))
    // A refund for another day, or with nothing counted, changes nothing.
    try await quota.refund(subject: "a", on: day.addingTimeInterval(-86_400))
    try await quota.refund(subject: "b", on: day)
    #expect(try await !quota.consume(subject: "a", on: day, limit: 1))
    #expect(try await quota.consume(subject: "b", on: day, limit: 1))
  }

  /// The day's table holds a bounded number of keys: a new one past it is refused (thrown:
  /// fail closed) while counted keys go on, and a key a refund brings back to zero leaves.
  @Test func theTableIsBoundedAndZeroedKeysLeave() async throws {
    let quota = InMemoryDailyQuota(maximumKeys: 2)
    let day = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(try await quota.consume(subject: "a", on: day, limit: 5))
    #expect(try await quota.consume(subject: "b", on: day, limit: 5))
    await #expect(throws: InMemoryDailyQuota.TableFull.self) {
      _ = try await quota.consume(subject: "c", on: day, limit: 5)
    }
    #expect(try await quota.consume(subject: "a", on: day, limit: 5))
    try await quota.refund(subject: "b", on: day)
    #expect(await quota.keyCount == 1)
    #expect(try await quota.consume(subject: "c", on: day, limit: 5))
    #expect(await quota.keyCount == 2)
    // A new day starts an empty table.
    #expect(try await quota.consume(subject: "d", on: day.addingTimeInterval(86_400), limit: 5))
    #expect(await quota.keyCount == 1)
  }

  /// A call whose upstream request fails (502) is given back: the next call fits.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aFailedUpstreamCallIsRefunded() async throws {
    try await ProxyHarness.with(configure: { $0.dailyQuota = 1 }) { proxy in
      proxy.upstream.enqueue(.status(500))
      let session = try await proxy.rawSession()
      let responses = try await proxy.sendVisions(3, prompt: "r", under: session)
      #expect(responses.map(\.statusCode) == [502, 200, 429])
      #expect(proxy.upstream.received.count == 2)
    }
  }

  /// A body the proxy cannot use is refused before the quota is counted.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func anInvalidBodyIsNotCounted() async throws {
    try await ProxyHarness.with(configure: { $0.dailyQuota = 1 }) { proxy in
      let session = try await proxy.rawSession()
      let invalid = try await proxy.sendVision(
        Data(#"{"image":"","task":"ask"}"#.utf8), secret: session.sessionSecret,
        session: session.sessionID)
      #expect(invalid.statusCode == 400)
      let body = try visionBody("valid")
      let valid = try await proxy.sendVision(
        body, secret: session.sessionSecret, session: session.sessionID)
      #expect(valid.statusCode == 200)
    }
  }

  @Test func isReadFromTheEnvironment() throws {
    var environment = minimalEnvironment
    #expect(
      try ProxyConfiguration.fromEnvironment(environment).dailyQuota
        == ProxyConfiguration.defaultDailyQuota)
    environment["DEX_PROXY_DAILY_QUOTA"] = "off"
    #expect(try ProxyConfiguration.fromEnvironment(environment).dailyQuota == nil)
    environment["DEX_PROXY_DAILY_QUOTA"] = "500"
    #expect(try ProxyConfiguration.fromEnvironment(environment).dailyQuota == 500)
    environment["DEX_PROXY_DAILY_QUOTA"] = "0"
    #expect(throws: ProxyConfigurationError.self) {
      try ProxyConfiguration.fromEnvironment(environment)
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aSpentQuotaIsA429UntilTheNextDay() async throws {
    try await ProxyHarness.with(configure: { $0.dailyQuota = 1 }) { proxy in
      let session = try await proxy.rawSession()
      let responses = try await proxy.sendVisions(2, prompt: "q", under: session)
      #expect(responses.map(\.statusCode) == [200, 429])
      #expect(errorCode(responses[1].body) == "quota_exceeded")
      let retry = Int(responses[1].value(forHeader: "Retry-After") ?? "") ?? 0
      #expect((1...86_400).contains(retry))
    }
  }
}
