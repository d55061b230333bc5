import DexProxy
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Starts Hummingbird applications on 127.0.0.1 at a free port, for the real HTTP servers that
/// DexCloud's loopback tests, the proxy's tests and the scan benchmark talk to.
public enum LoopbackServer {
  /// A server that did not report a port: it failed to start.
  public struct StartFailed: Error {
    /// Creates the error.
    public init() {}
  }

  /// A server started by ``LoopbackServer``: its port, and the one way to stop it.
  ///
  /// Stopping is a graceful shutdown, never a cancellation of the serving task: a Hummingbird
  /// server whose task is cancelled drops the connections it has accepted but not yet handed
  /// to a handler, and NIO traps on each ("Deinited NIOAsyncWriter without calling finish()",
  /// swift-nio issue 2637), which ends the whole test process when a client connects just as
  /// a test ends.
  public struct Running: Sendable {
    /// The port the server listens on, on 127.0.0.1.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    fileprivate init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
      self.port = port
      self.group = group
      self.task = task
    }

    /// Stops accepting, lets the requests in flight end and waits for the server to end.
    ///
    /// A connection that is still open after `grace` (a client that neither sends nor closes)
    /// is cut by cancelling the server: by then the server has stopped accepting, so no
    /// accepted connection is left unhandled (and a line on standard error names its port). A
    /// server that has not ended `grace` after that (a handler that ignores cancellation) is left
    /// behind, with another such line, so that a stop never waits without a bound.
    ///
    /// The waits run apart from the caller's task: a caller already cancelled (a test past its
    /// time limit) would end each wait at once and cancel the server straight after asking it to
    /// stop, which is the trap above.
    ///
    /// - Returns: whether the server ended.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) async -> Bool {
      let running = self
      return await Task { await running.stopGracefully(grace: grace) }.value
    }

    private func stopGracefully(grace: Duration) async -> Bool {
      await group.triggerGracefulShutdown()
      if await ended(within: grace) { return true }
      // A client that keeps its connection open (a trickle, a stalled stream): cut it.
      Self.note("port \(port) still serves \(grace) after its graceful shutdown; cancelling it")
      task.cancel()
      if await ended(within: grace) { return true }
      Self.note("port \(port) still serves \(grace) after its cancellation; left running")
      return false
    }

    /// A line on standard error about a stop that took longer than it should.
    private static func note(_ text: String) {
      // `write(contentsOf:)`, not `write(_:)`, which traps on a write error (a closed pipe).
      try? FileHandle.standardError.write(contentsOf: Data("LoopbackServer: \(text)\n".utf8))
    }

    /// Whether the server's task ends within `limit`.
    ///
    /// Awaiting a task's result cannot be cancelled, so the wait runs in a task of its own
    /// rather than in a task group (whose scope would wait for it however the race ended): a
    /// server that does not end leaves only that waiter behind.
    private func ended(within limit: Duration) async -> Bool {
      let task = self.task
      let (outcomes, outcome) = AsyncStream.makeStream(of: Bool.self)
      Task {
        _ = await task.result
        outcome.yield(true)
      }
      let timer = Task {
        try? await Task.sleep(for: limit)
        outcome.yield(false)
      }
      var first = false
      for await ended in outcomes {
        first = ended
        break
      }
      timer.cancel()
      outcome.finish()
      return first
    }
  }

  /// Runs the application `make` builds (it must call the given closure with its bound port
  /// once it listens) and returns it running; stop it with ``Running/stop(grace:)``. Throws
  /// ``StartFailed`` instead of waiting forever when the server ends before it listens.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func start(
    _ make: (_ onServerRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol
  ) async throws -> Running {
    let (ports, ready) = AsyncStream.makeStream(of: Int.self)
    let app = make { port in
      ready.yield(port)
      ready.finish()
    }
    var quiet = Logger(label: "dexkit.testing.loopback")
    quiet.logLevel = .critical
    let group = ServiceGroup(
      configuration: .init(
        services: [.init(service: app)], gracefulShutdownSignals: [], cancellationSignals: [],
        logger: quiet))
    let task = Task {
      defer { ready.finish() }
      try await group.run()
    }
    var port = 0
    for await value in ports { port = value }
    let server = Running(port: port, group: group, task: task)
    guard port > 0 else {
      await server.stop()
      throw StartFailed()
    }
    return server
  }

  /// Runs `make`'s application like `start(_:)`, calls `body` with its port and always
  /// stops it gracefully, also when `body` throws.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func with<T>(
    _ make: (_ onServerRunning: @escaping @Sendable (Int) async -> Void) ->
      some ApplicationProtocol,
    _ body: (_ port: Int) async throws -> T
  ) async throws -> T {
    let server = try await start(make)
    do {
      let result = try await body(server.port)
      await server.stop()
      return result
    } catch {
      await server.stop()
      throw error
    }
  }

  /// Runs `router` on 127.0.0.1 (port 0: the kernel picks one) with a quiet logger.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func start(
    _ router: Router<BasicRequestContext>, label: String
  ) async throws -> Running {
    var quiet = Logger(label: label)
    quiet.logLevel = .critical
    return try await start { onServerRunning in
      Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { await onServerRunning($0.localAddress?.port ?? 0) }, logger: quiet)
    }
  }

  /// Runs `dex-proxy` with `configuration` (its host and port are replaced by 127.0.0.1 and a
  /// free port) and `logger`.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func startProxy(
    _ configuration: ProxyConfiguration, logger: Logger
  ) async throws -> Running {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    return try await start { onServerRunning in
      DexProxyApplication.make(
        configuration: configuration, logger: logger, onServerRunning: onServerRunning)
    }
  }

  /// Runs one `dex-proxy` per logger, all with the same `configuration` (so a shared store is
  /// shared), calls `body` with their ports in order, and always stops them all, also when
  /// starting one of them or `body` throws: the set-up of a cluster test or a load test.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func withProxies<T: Sendable>(
    _ configuration: ProxyConfiguration, loggers: [Logger], _ body: ([Int]) async throws -> T
  ) async throws -> T {
    var servers: [Running] = []
    func stopAll() async {
      for server in servers { await server.stop() }
    }
    do {
      for logger in loggers {
        servers.append(try await startProxy(configuration, logger: logger))
      }
      let result = try await body(servers.map(\.port))
      await stopAll()
      return result
    } catch {
      await stopAll()
      throw error
    }
  }
}
