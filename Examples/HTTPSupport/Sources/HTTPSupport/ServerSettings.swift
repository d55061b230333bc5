/// Where and how patiently an example server listens: its name, address and read deadlines.
///
/// It exists so that dex-proxy and PixScan state the same things the same way, for
/// ``ServerSetup`` to apply.
public struct ServerSettings: Sendable {
  /// The name in the start-up line (`<name> listening`) and the `Server` header.
  public var name: String
  /// The address to bind.
  public var host: String
  /// The port to bind (0: the kernel picks one).
  public var port: Int
  /// How long a request's headers and body may take to arrive, and a connection may stay idle
  /// between requests (see ``RequestReadDeadline``).
  public var readTimeout: Duration
  /// How long a new connection may take to send its first headers (`nil`: ``readTimeout``).
  public var connectTimeout: Duration?
  /// A request's body deadline from its raw path (`nil`: ``readTimeout`` for every path).
  public var bodyTimeout: (@Sendable (_ path: Substring) -> Duration)?

  /// Settings for a server called `name` on `host`:`port`.
  public init(
    name: String, host: String, port: Int, readTimeout: Duration,
    connectTimeout: Duration? = nil,
    bodyTimeout: (@Sendable (_ path: Substring) -> Duration)? = nil
  ) {
    self.name = name
    self.host = host
    self.port = port
    self.readTimeout = readTimeout
    self.connectTimeout = connectTimeout
    self.bodyTimeout = bodyTimeout
  }
}
