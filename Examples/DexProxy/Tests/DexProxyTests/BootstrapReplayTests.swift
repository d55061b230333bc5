import DexCloud
import DexCloudServer
import DexExamplesTestSupport
import DexProxy
import DexProxyTesting
import Foundation
import Logging
import Testing

/// `/auth_token` signatures are recorded against replay apart from `/vision`'s: sessions minted
/// in bulk fill only their own cache, and the sessions already issued keep working.
@Suite struct BootstrapReplayTests {
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func mintedSessionsCannotFillTheCacheVisionUses() async throws {
    // The default wiring (no cache given, no PostgreSQL), with small capacities.
    try await ProxyHarness.with(configure: {
      $0.replayCacheCapacity = 100
      $0.bootstrapReplayCacheCapacity = 3
    }) { proxy in
      var sessions: [AuthTokenResponse] = []
      for index in 0..<3 {
        sessions.append(try await proxy.rawSession(subject: "minted-\(index)"))
      }
      // The fourth is refused: its cache is full for the timestamp window.
      let body = try JSONEncoder().encode(AuthTokenRequest(subject: "minted-3"))
      let refused = try await proxy.send(
        "POST", "/auth_token",
        headers: ProxyHarness.signed(
          "/auth_token", body: body, secret: ProxyHarness.bootstrapKey),
        body: body)
      #expect(refused.statusCode == 503)
      #expect(errorCode(refused.body) == "replay_cache_full")
      // Sessions already issued are served, and their calls still recorded against replay.
      for session in sessions {
        let (first, replay) = try await proxy.sendVisionAndReplay(
          try visionBody("after the flood \(session.sessionID.prefix(8))"),
          secret: session.sessionSecret, session: session.sessionID)
        #expect(first.statusCode == 200, "\(errorCode(first.body) ?? "")")
        #expect(replay.statusCode == 401)
        #expect(errorCode(replay.body) == "replayed_request")
      }
    }
  }
}
