import DexCloud
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// `DEX_PROXY_TRUSTED_PROXIES`: `X-Forwarded-For` names the client only behind a trusted
/// balancer.
@Suite struct TrustedProxiesTests {
  @Test func parsesAddressesAndBlocks() throws {
    let trusted = try #require(TrustedProxies("10.0.0.0/8, 192.168.1.7 ,fd00::/8"))
    #expect(trusted.contains("10.200.3.4"))
    #expect(trusted.contains("192.168.1.7"))
    #expect(!trusted.contains("192.168.1.8"))
    #expect(trusted.contains("fd12::1"))
    #expect(!trusted.contains("fe80::1"))
    #expect(!trusted.contains("not-an-address"))
    #expect(TrustedProxies.none.contains("127.0.0.1") == false)
  }

  @Test(arguments: ["10.0.0.0/33", "10.0.0/8", "::1/129", "10.0.0.1/", "host.example"])
  func refusesMalformedEntries(_ text: String) {
    #expect(TrustedProxies(text) == nil)
  }

  /// A server listening on `::` sees an IPv4 balancer as `::ffff:a.b.c.d`: still trusted.
  @Test func anIPv4MappedPeerMatchesIPv4Blocks() throws {
    let trusted = try #require(TrustedProxies("10.0.0.0/8, 127.0.0.1"))
    #expect(trusted.contains("::ffff:10.1.2.3"))
    #expect(trusted.contains("::ffff:127.0.0.1"))
    #expect(!trusted.contains("::ffff:11.1.2.3"))
    #expect(!trusted.contains("::10.1.2.3"))
    #expect(
      trusted.clientAddress(remote: "::ffff:127.0.0.1", forwardedFor: "203.0.113.9")
        == "203.0.113.9")
  }

  /// Some balancers add the client's port: the address is still the client's own, not the
  /// balancer's (which every such client would otherwise share).
  @Test func aHopWithAPortIsTheAddress() throws {
    let trusted = try #require(TrustedProxies("10.0.0.0/8"))
    #expect(
      trusted.clientAddress(remote: "10.0.0.2", forwardedFor: "203.0.113.9:51234")
        == "203.0.113.9")
    #expect(
      trusted.clientAddress(remote: "10.0.0.2", forwardedFor: "[2001:db8::7]:443")
        == "2001:db8::7")
    #expect(
      trusted.clientAddress(remote: "10.0.0.2", forwardedFor: "2001:db8::7") == "2001:db8::7")
    #expect(trusted.clientAddress(remote: "10.0.0.2", forwardedFor: "1.2.3.4:x") == "10.0.0.2")
  }

  @Test func picksTheRightmostUntrustedHop() throws {
    let trusted = try #require(TrustedProxies("10.0.0.0/8"))
    #expect(
      trusted.clientAddress(remote: "10.0.0.2", forwardedFor: "1.2.3.4, 203.0.113.9, 10.0.0.3")
        == "203.0.113.9")
    #expect(trusted.clientAddress(remote: "10.0.0.2", forwardedFor: nil) == "10.0.0.2")
    #expect(trusted.clientAddress(remote: "10.0.0.2", forwardedFor: "10.1.1.1") == "10.0.0.2")
    #expect(trusted.clientAddress(remote: "10.0.0.2", forwardedFor: "garbage") == "10.0.0.2")
    // From an untrusted peer the header is ignored.
    #expect(
      trusted.clientAddress(remote: "198.51.100.1", forwardedFor: "1.2.3.4") == "198.51.100.1")
  }

  @Test func isReadFromTheEnvironment() throws {
    var environment = minimalEnvironment
    #expect(try ProxyConfiguration.fromEnvironment(environment).trustedProxies == .none)
    environment["DEX_PROXY_TRUSTED_PROXIES"] = "10.0.0.0/8"
    #expect(try ProxyConfiguration.fromEnvironment(environment).trustedProxies.contains("10.9.9.9"))
    environment["DEX_PROXY_TRUSTED_PROXIES"] = "10.0.0.0/99"
    #expect(throws: ProxyConfigurationError.self) {
      try ProxyConfiguration.fromEnvironment(environment)
    }
  }

  /// Three `/auth_token` requests (burst 2) that claim to come from `clients` in turn.
  @available(macOS 14, iOS 17, tvOS 17, *)
  private func authStatuses(trusted: TrustedProxies, clients: [String]) async throws -> [Int] {
    try await ProxyHarness.with(configure: {
      $0.trustedProxies = trusted
      $0.rateLimit = RateLimit(burst: 2, refillPerSecond: 0.01)
    }) { proxy in
      var statuses: [Int] = []
      for (index, client) in clients.enumerated() {
        let body = Data(#"{"subject":"xff-\#(index)"}"#.utf8)
        var headers = ProxyHarness.signed(
          "/auth_token", body: body, secret: ProxyHarness.bootstrapKey)
        headers["X-Forwarded-For"] = client
        statuses.append(
          try await proxy.send("POST", "/auth_token", headers: headers, body: body).statusCode)
      }
      return statuses
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func behindATrustedBalancerEachClientHasItsOwnBucket() async throws {
    let trusted = try #require(TrustedProxies("127.0.0.1/32"))
    let clients = ["203.0.113.5", "203.0.113.5", "203.0.113.5", "203.0.113.6"]
    #expect(try await authStatuses(trusted: trusted, clients: clients) == [200, 200, 429, 200])
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func fromAnUntrustedPeerTheHeaderIsIgnored() async throws {
    let clients = ["203.0.113.5", "203.0.113.6", "203.0.113.7"]
    #expect(try await authStatuses(trusted: .none, clients: clients) == [200, 200, 429])
  }
}
