import DexCloudServer
import DexExamplesTestSupport
import DexProxy
import DexProxyTesting
import Foundation
import Logging
import Testing

/// A shared store that counts `/health`'s probes (a stand-in behind the `SharedReplayStore`
/// protocol, to isolate how often the proxy probes); replays are kept in memory.
final class CountingStore: SharedReplayStore, @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private let replays = InMemoryReplayCache()

  var probes: Int { lock.withLock { count } }

  func insertIfAbsent(_ signature: String, expiresAt: Date) async throws -> Bool {
    try await replays.insertIfAbsent(signature, expiresAt: expiresAt)
  }

  func isAvailable() async -> Bool {
    lock.withLock { count += 1 }
    try? await Task.sleep(for: .milliseconds(50))
    return true
  }
}

@Suite struct HealthProbeTests {
  /// Fifty unauthenticated `/health` calls at once cost one store probe, not fifty.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func healthProbesTheStoreAtMostOnceASecond() async throws {
    let upstream = StubUpstream()
    try await upstream.start()
    let store = CountingStore()
    var quiet = Logger(label: "health-test")
    quiet.logLevel = .critical
    let configuration = ProxyHarness.configuration(upstreamPort: upstream.port)
    let statuses: [Int]
    let elapsed: Duration
    do {
      (statuses, elapsed) = try await LoopbackServer.with { onServerRunning in
        DexProxyApplication.make(
          configuration: configuration, replayCache: store, logger: quiet,
          onServerRunning: onServerRunning)
      } _: { port in
        let harness = ProxyHarness(port: port, upstream: upstream, logs: LogCapture())
        let started = ContinuousClock.now
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
          for _ in 0..<50 { group.addTask { try await harness.send("GET", "/health").statusCode } }
          return try await group.reduce(into: []) { $0.append($1) }
        }
        return (statuses, ContinuousClock.now - started)
      }
    } catch {
      await upstream.stop()
      throw error
    }
    await upstream.stop()
    #expect(statuses.allSatisfy { $0 == 200 })
    #expect(statuses.count == 50)
    // One probe a second at most, counted against the seconds the calls really took (a fixed
    // bound of 5 would fail a host slow enough to spread the 50 calls over more than 5 s), and
    // never one per call.
    let seconds = Int(elapsed.components.seconds)
    #expect(store.probes >= 1 && store.probes <= seconds + 1, "\(store.probes) in \(elapsed)")
    #expect(store.probes < 50)
  }
}
