import Hummingbird
import Logging

/// Starts a Hummingbird router on 127.0.0.1 at a free port, for the real HTTP servers that
/// DexCloudTests, DexProxyTests and the scan benchmark talk to.
public enum LoopbackServer {
  /// A server that did not report a port: it failed to start.
  public struct StartFailed: Error {
    /// Creates the error.
    public init() {}
  }

  /// Runs `router` on 127.0.0.1 (port 0: the kernel picks one) with a quiet logger and returns
  /// the port and the task serving it; cancel the task to stop the server. Throws
  /// ``StartFailed`` instead of waiting forever when the server ends before it listens.
  @available(macOS 14, iOS 17, tvOS 17, *)
  public static func start(
    _ router: Router<BasicRequestContext>, label: String
  ) async throws -> (port: Int, task: Task<Void, any Error>) {
    let (ports, ready) = AsyncStream.makeStream(of: Int.self)
    var quiet = Logger(label: label)
    quiet.logLevel = .critical
    let app = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
      onServerRunning: { channel in
        ready.yield(channel.localAddress?.port ?? 0)
        ready.finish()
      }, logger: quiet)
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
}
