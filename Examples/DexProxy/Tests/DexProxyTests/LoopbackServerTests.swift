import DexExamplesTestSupport
import DexProxyTesting
import Foundation
import Hummingbird
import Synchronization
import Testing

/// `LoopbackServer.Running.stop` is bounded: every test server stops through it, so a request
/// that outlasts the grace period must not keep a test (and the whole suite) waiting.
@Suite struct LoopbackServerTests {
  /// Whether the held request's handler has started.
  final class Started: Sendable {
    private let value = Atomic(false)
    func mark() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
  }

  /// A server whose one route (`/hold`) marks `started` and then waits in `hold`.
  @available(macOS 14, iOS 17, tvOS 17, *)
  static func server(
    started: Started, hold: @escaping @Sendable () async -> Void
  ) async throws -> LoopbackServer.Running {
    let router = Router()
    router.get("hold") { _, _ -> String in
      started.mark()
      await hold()
      return "released"
    }
    return try await LoopbackServer.start(router, label: "loopback-stop-test")
  }

  /// A wait that ignores task cancellation and holds no thread: it ends when ``open()`` is
  /// called (at once if it was already).
  final class Release: Sendable {
    private let state = Mutex<(opened: Bool, waiter: CheckedContinuation<Void, Never>?)>(
      (false, nil))

    func wait() async {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state -> Bool in
          if state.opened { return true }
          state.waiter = continuation
          return false
        }
        if now { continuation.resume() }
      }
    }

    func open() {
      let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
        state.opened = true
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume()
    }
  }

  /// Starts a server whose `/hold` waits in `hold`, holds one request there (waiting at most
  /// 30 s for its handler to run), then stops the server with `grace`: the stop's answer
  /// (``stopWithin(_:grace:)``).
  @available(macOS 14, iOS 17, tvOS 17, *)
  static func stopWhileHolding(
    grace: Duration, _ hold: @escaping @Sendable () async -> Void
  ) async throws -> Bool? {
    let started = Started()
    let server = try await server(started: started, hold: hold)
    let connection = try RawConnection(port: server.port)
    defer { connection.close() }
    #expect(connection.send("GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
    let deadline = ContinuousClock.now + .seconds(30)
    while !started.isSet, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    try #require(started.isSet, "the handler never ran")
    return await stopWithin(server, grace: grace)
  }

  /// `stop(grace:)`'s answer, or `nil` when it has not returned within two minutes (it waits on
  /// a handler that never ends).
  static func stopWithin(_ server: LoopbackServer.Running, grace: Duration) async -> Bool? {
    let (answers, answer) = AsyncStream.makeStream(of: Bool?.self)
    Task { answer.yield(await server.stop(grace: grace)) }
    let limit = Task {
      try? await Task.sleep(for: .seconds(120))
      answer.yield(nil)
    }
    defer { limit.cancel() }
    for await first in answers { return first }
    return nil
  }

  /// A request whose handler waits an hour (cancellably) is cut by cancellation once the grace
  /// period has passed: the server ends and the stop says so. The grace is 10 s (the test waits
  /// it out once) because the server must end within it after the cancellation, which takes
  /// milliseconds but once had only 1 s on a loaded 2-core machine.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aRequestThatOutlastsTheGracePeriodIsCancelled() async throws {
    let ended = try await Self.stopWhileHolding(grace: .seconds(10)) {
      try? await Task.sleep(for: .seconds(3600))
    }
    #expect(ended == true)
  }

  /// A handler that ignores cancellation (it waits until the test releases it, after the stop
  /// has answered) cannot end the server in time: the stop gives up after its second grace
  /// period and says so, rather than waiting for it. The handler's end is a signal, not a
  /// timer, so no speed of the machine lets it end first.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func aHandlerThatIgnoresCancellationIsLeftBehind() async throws {
    let release = Release()
    defer { release.open() }
    let ended = try await Self.stopWhileHolding(grace: .seconds(1)) { await release.wait() }
    #expect(ended == false)
  }

  /// A server with no request in flight ends within the grace period.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func anIdleServerEndsGracefully() async throws {
    let server = try await Self.server(started: Started()) {}
    #expect(await Self.stopWithin(server, grace: .seconds(10)) == true)
  }
}
