import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

extension ServerSetup {
  /// How long a stopping server lets the requests in flight finish (a streamed answer, a slow
  /// upload, a model call) before it cancels them: 30 seconds.
  ///
  /// It exists because a graceful stop otherwise waits for every open request however long it
  /// takes: one client that keeps a streamed reply open would keep the process alive after
  /// SIGTERM until something kills it harder.
  public static let gracePeriod: Duration = .seconds(30)

  /// The service group that runs `app`: a graceful stop on any of `signals`, and the requests
  /// still in flight `gracePeriod` later cancelled.
  ///
  /// It exists so that tests can stop the same group the executables run (with no signals, by
  /// `triggerGracefulShutdown()`); the executables call ``run(_:gracePeriod:)``.
  public static func serviceGroup(
    running app: some ApplicationProtocol, gracePeriod: Duration = Self.gracePeriod,
    signals: [UnixSignal] = [.sigterm, .sigint]
  ) -> ServiceGroup {
    var configuration = ServiceGroupConfiguration(
      services: [.init(service: app)], gracefulShutdownSignals: signals, cancellationSignals: [],
      logger: app.logger)
    configuration.maximumGracefulShutdownDuration = gracePeriod
    return ServiceGroup(configuration: configuration)
  }

  /// Runs `app` until SIGTERM or SIGINT, then stops it gracefully: no new connections, the
  /// requests in flight given `gracePeriod` to finish, then cancelled.
  ///
  /// It exists in place of Hummingbird's `runService()`, whose graceful stop has no end.
  public static func run(
    _ app: some ApplicationProtocol, gracePeriod: Duration = Self.gracePeriod
  ) async throws {
    try await serviceGroup(running: app, gracePeriod: gracePeriod).run()
  }
}
