import Foundation

/// Where the shared PostgreSQL store lives and how the proxy talks to it, read from a
/// `postgres://user:password@host:port/database` URL (``ProxyConfiguration/Variable/postgresURL``).
///
/// Its ``description`` never shows the password, and parsing errors never repeat the URL.
public struct PostgresStoreConfiguration: Sendable, Equatable, CustomStringConvertible {
  /// How the connection is encrypted (the URL's `sslmode` query item).
  public enum TLSMode: String, Sendable, Equatable {
    /// Plain TCP (`sslmode=disable`, the default: loopback or a private network).
    case disable
    /// TLS when the server offers it (`sslmode=prefer`).
    case prefer
    /// TLS or no connection (`sslmode=require`).
    case require
  }

  /// The server's host name or address.
  public var host: String
  /// The server's port (default 5432).
  public var port: Int
  /// The user to connect as.
  public var username: String
  /// The user's password, if any; never printed.
  public var password: String?
  /// The database holding the proxy's tables.
  public var database: String
  /// How the connection is encrypted.
  public var tls: TLSMode
  /// The most connections each proxy instance opens (default 10).
  public var maximumConnections: Int
  /// How long one store operation may take before the request is refused with 503 (default 2 s).
  public var operationTimeout: Duration
  /// How often expired rows are deleted (default 60 s).
  public var sweepInterval: Duration

  /// Creates a configuration from its parts.
  public init(
    host: String, port: Int = 5432, username: String, password: String?, database: String,
    tls: TLSMode = .disable, maximumConnections: Int = 10,
    operationTimeout: Duration = .seconds(2), sweepInterval: Duration = .seconds(60)
  ) {
    self.host = host
    self.port = port
    self.username = username
    self.password = password
    self.database = database
    self.tls = tls
    self.maximumConnections = max(1, maximumConnections)
    self.operationTimeout = operationTimeout
    self.sweepInterval = sweepInterval
  }

  /// Parses `postgres://user:password@host:port/database[?sslmode=disable|prefer|require]`
  /// (`postgresql://` too; user and password may be percent-encoded).
  ///
  /// - Throws: ``ProxyConfigurationError`` for ``ProxyConfiguration/Variable/postgresURL``;
  ///   its text never contains the URL.
  public init(url text: String) throws(ProxyConfigurationError) {
    func fail(_ problem: String) -> ProxyConfigurationError {
      ProxyConfigurationError(variable: ProxyConfiguration.Variable.postgresURL, problem: problem)
    }
    guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
      let scheme = components.scheme?.lowercased(),
      scheme == "postgres" || scheme == "postgresql"
    else { throw fail("is not a postgres://user:password@host:port/database URL.") }
    guard let host = components.host, !host.isEmpty else { throw fail("has no host.") }
    guard let user = components.percentEncodedUser?.removingPercentEncoding, !user.isEmpty
    else { throw fail("has no user name.") }
    let database = String(components.path.drop(while: { $0 == "/" }))
    guard !database.isEmpty, !database.contains("/") else {
      throw fail("has no database name (…/database).")
    }
    let port = components.port ?? 5432
    guard (1...65_535).contains(port) else { throw fail("has a port outside 1–65535.") }
    var tls = TLSMode.disable
    if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
      guard let parsed = TLSMode(rawValue: mode) else {
        throw fail("has an sslmode other than disable, prefer or require.")
      }
      tls = parsed
    }
    self.init(
      host: host, port: port, username: user,
      password: components.percentEncodedPassword?.removingPercentEncoding, database: database,
      tls: tls)
  }

  /// `postgres://user:***@host:port/database`: the password is never shown.
  public var description: String {
    "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
      + (tls == .disable ? "" : "?sslmode=\(tls.rawValue)")
  }
}
