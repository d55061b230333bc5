import DexProxy
import Hummingbird
import Logging

/// Starts Hummingbird applications on 127.0.0.1 at a free port, for the real HTTP servers that
/// DexCloud's loopback tests, the proxy's tests and the scan benchmark talk to.
public enum LoopbackServer {
  /// A server that did not report a port: it failed to start.
  public struct StartFailed: Error {
    /// Creates the error.
    public init() {}
  }

  /// Runs the application `make` builds (it must call the given closure with its bound port
  /// once it listens) and returns that port and the task serving it; cancel the task to stop
  /// the server. Throws ``StartFailed`` instead of waiting forever when the server ends before
  /// it listens.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func start(
    _ make: (_ onServerRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol
  ) async throws -> (port: Int, task: Task<Void, any Error>) {
    let (ports, ready) = AsyncStream.makeStream(of: Int.self)
    let app = make { port in
      ready.yield(port)
      ready.finish()
    }
    let task = Task {
      defer { ready.finish() }
      try await app.runService(gracefulShutdownSignals: [])
    }
    var port = 0
    for await value in ports { port = value }
    guard port > 0 else {
      task.cancel()
      throw StartFailed()
    }
    return (port, task)
  }

  /// Runs `router` on 127.0.0.1 (port 0: the kernel picks one) with a quiet logger.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func start(
    _ router: Router<BasicRequestContext>, label: String
  ) async throws -> (port: Int, task: Task<Void, any Error>) {
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
  ) async throws -> (port: Int, task: Task<Void, any Error>) {
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
    var servers: [(port: Int, task: Task<Void, any Error>)] = []
    func stopAll() async {
      for server in servers {
        server.task.cancel()
        _ = try? await server.task.value
      }
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
