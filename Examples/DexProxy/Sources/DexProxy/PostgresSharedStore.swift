import Crypto
import DexCloudServer
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle

/// The state every proxy instance shares through one PostgreSQL database: the replay cache
/// (a ``DexCloudServer/ReplayCache``), the rate limiter's token buckets (a
/// ``SharedRateLimiter``) and the daily and hourly budgets (a ``DailyQuotaStore``). So a request
/// accepted by one instance is refused as a replay by all the others, and a bucket or budget
/// spent on one is spent on all. (It was called `PostgresReplayCache` when it held only the
/// replay cache.)
///
/// - One row per accepted signature: its SHA-256 hash (never the signature) and its expiry.
/// - Recording is one atomic statement (`INSERT … ON CONFLICT … RETURNING`): the row comes back
///   only when the hash was absent (or its row had expired), so two instances racing on the same
///   signature cannot both accept it.
/// - The tables are created once per process (`CREATE TABLE IF NOT EXISTS`, under an advisory
///   lock so instances starting together do not collide): single-flight, so concurrent first
///   requests share one set-up, and never again once it succeeded, so a failing query never
///   re-runs DDL (whose locks would block inserts on every instance). Expired rows are deleted
///   in the background by the database's clock (`now()`), not the instance's.
/// - It fails closed: any database error or an operation slower than
///   ``PostgresStoreConfiguration/operationTimeout`` throws, and the verifier refuses the request
///   (`dex-proxy` answers 503 `replay_store_unavailable`). The connection pool reconnects by itself
///   when the database returns.
///
/// It is a `Service`: run it (``run()``) for as long as it is used; ``DexProxyApplication`` does.
/// Logs name the failure's kind, never the URL, the password or a signature.
public final class PostgresSharedStore: ReplayCache, SharedReplayStore, Service {
  /// The table holding the hashes.
  public static let tableName = "dex_proxy_replay"

  let client: PostgresClient
  private let configuration: PostgresStoreConfiguration
  private let logger: Logger
  private let metrics: ProxyMetrics?
  let now: @Sendable () -> Date
  let state = State()
  /// How long past its expiry the sweep keeps a replay row (by the database's clock): the clock
  /// difference between an instance and the database that replay protection tolerates.
  public static let sweepMarginSeconds = 300

  /// Creates the cache; it connects once ``run()`` runs.
  ///
  /// - Parameters:
  ///   - configuration: the database and the pool's limits.
  ///   - logger: where failures are logged (never with secrets).
  ///   - metrics: where each operation's duration and failures are counted, if anywhere.
  ///   - now: the clock deciding whether a stored row has expired.
  public init(
    configuration: PostgresStoreConfiguration, logger: Logger, metrics: ProxyMetrics? = nil,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.configuration = configuration
    self.logger = logger
    self.metrics = metrics
    self.now = now
    let tls: PostgresClient.Configuration.TLS =
      switch configuration.tls {
      case .disable: .disable
      case .prefer: .prefer(.makeClientConfiguration())
      case .require: .require(.makeClientConfiguration())
      }
    var client = PostgresClient.Configuration(
      host: configuration.host, port: configuration.port, username: configuration.username,
      password: configuration.password, database: configuration.database, tls: tls)
    client.options.maximumConnections = configuration.maximumConnections
    client.options.connectTimeout = configuration.operationTimeout
    var background = logger
    background.logLevel = max(logger.logLevel, .warning)
    self.client = PostgresClient(configuration: client, backgroundLogger: background)
  }

  /// Runs the connection pool and the background work (migration until it succeeds, then the
  /// deletion of expired rows every ``PostgresStoreConfiguration/sweepInterval``) until
  /// cancelled or until a graceful shutdown.
  public func run() async throws {
    logger.info("Replay store: PostgreSQL", metadata: ["database": "\(configuration)"])
    await cancelWhenGracefulShutdown {
      await withDiscardingTaskGroup { group in
        group.addTask { await self.client.run() }
        group.addTask { await self.maintain() }
      }
    }
  }

  /// See ``DexCloudServer/ReplayCache/insertIfAbsent(_:expiresAt:)``.
  ///
  /// - Throws: ``PostgresReplayStoreError`` when the database cannot answer in time.
  public func insertIfAbsent(_ signature: String, expiresAt: Date) async throws -> Bool {
    let hash = ByteBuffer(bytes: SHA256.hash(data: Data(signature.utf8)))
    let current = now()
    return try await perform("insert") {
      try await self.migrateIfNeeded()
      let rows = try await self.client.query(
        """
        INSERT INTO dex_proxy_replay (signature_hash, expires_at) VALUES (\(hash), \(expiresAt))
        ON CONFLICT (signature_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at
        WHERE dex_proxy_replay.expires_at <= \(current)
        RETURNING 1
        """)
      var inserted = 0
      for try await _ in rows { inserted += 1 }
      return inserted == 1
    }
  }

  /// See ``SharedReplayStore/isAvailable()``: a `SELECT 1` within the operation timeout.
  public func isAvailable() async -> Bool {
    do {
      return try await perform("health") {
        try await self.migrateIfNeeded()
        for try await _ in try await self.client.query("SELECT 1") {}
        return true
      }
    } catch {
      return false
    }
  }

  /// Deletes the replay rows whose expiry has passed, the rate-limit buckets idle long enough to
  /// be full again and the quota counts older than yesterday; returns how many replay rows went.
  ///
  /// Every comparison uses the database's clock (`now()`), so an instance whose clock runs
  /// ahead cannot delete rows that other instances still rely on to refuse replays; and a
  /// replay row is kept ``sweepMarginSeconds`` past its expiry, since an instance whose clock
  /// runs behind the database's still accepts the timestamp that long after it.
  @discardableResult
  public func deleteExpired() async throws -> Int {
    try await perform("sweep") {
      try await self.migrateIfNeeded()
      let rows = try await self.client.query(
        """
        DELETE FROM dex_proxy_replay
        WHERE expires_at <= now() - make_interval(secs => \(unescaped: String(Self.sweepMarginSeconds)))
        RETURNING 1
        """)
      var deleted = 0
      for try await _ in rows { deleted += 1 }
      try await self.client.query(
        """
        DELETE FROM dex_proxy_rate
        WHERE updated_at + make_interval(secs => refill_secs) <= now()
        """)
      try await self.client.query(
        "DELETE FROM dex_proxy_quota WHERE day < (now() AT TIME ZONE 'UTC')::date - 1")
      return deleted
    }
  }

  // MARK: Internals

  private func maintain() async {
    while !Task.isCancelled {
      var interval = configuration.sweepInterval
      do {
        if await state.migrated {
          let deleted = try await deleteExpired()
          if deleted > 0 {
            logger.debug("Expired replay rows deleted", metadata: ["rows": "\(deleted)"])
          }
        } else {
          try await perform("migrate") { try await self.migrateIfNeeded() }
        }
      } catch {
        interval = min(interval, .seconds(1))
      }
      try? await Task.sleep(for: interval)
    }
  }

  /// Creates the tables unless this process already did: one set-up at a time (concurrent
  /// callers wait for the one running), and none after one succeeded.
  func migrateIfNeeded() async throws {
    try await state.migrateOnce { try await self.migrate() }
  }

  private func migrate() async throws {
    metrics?.recordMigration()
    try await client.withTransaction(logger: logger) { connection in
      // Instances starting together would race on the catalog without this lock.
      try await connection.query("SELECT pg_advisory_xact_lock(7305214021)", logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS dex_proxy_replay (
          signature_hash BYTEA PRIMARY KEY,
          expires_at TIMESTAMPTZ NOT NULL
        )
        """, logger: logger)
      try await connection.query(
        """
        CREATE INDEX IF NOT EXISTS dex_proxy_replay_expires_at
        ON dex_proxy_replay (expires_at)
        """, logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS dex_proxy_rate (
          bucket_key BYTEA PRIMARY KEY,
          tokens DOUBLE PRECISION NOT NULL,
          updated_at TIMESTAMPTZ NOT NULL,
          refill_secs DOUBLE PRECISION NOT NULL,
          allowed BOOLEAN NOT NULL
        )
        """, logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS dex_proxy_quota (
          subject_hash BYTEA NOT NULL,
          day DATE NOT NULL,
          used INTEGER NOT NULL,
          PRIMARY KEY (subject_hash, day)
        )
        """, logger: logger)
    }
  }

  /// Runs `operation` within the operation timeout; logs and rethrows any failure as
  /// ``PostgresReplayStoreError`` (its text has no secret).
  func perform<T: Sendable>(
    _ name: String, _ operation: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    let timeout = configuration.operationTimeout
    let started = ContinuousClock.now
    do {
      let value = try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
          try await Task.sleep(for: timeout)
          throw PostgresReplayStoreError(operation: name, reason: "timed out")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else {
          throw PostgresReplayStoreError(operation: name, reason: "cancelled")
        }
        return first
      }
      metrics?.recordStore(
        operation: name, duration: ContinuousClock.now - started, failed: false)
      if await state.recordSuccess() {
        logger.notice("Replay store reachable again")
      }
      return value
    } catch {
      let failure =
        error as? PostgresReplayStoreError
        ?? PostgresReplayStoreError(operation: name, reason: Self.reason(error))
      metrics?.recordStore(operation: name, duration: ContinuousClock.now - started, failed: true)
      if await state.recordFailure() {
        logger.warning(
          "Replay store unavailable; signed requests are refused",
          metadata: ["operation": "\(name)", "reason": "\(failure.reason)"])
      }
      throw failure
    }
  }

  /// A secret-free reason: PostgreSQL's SQLSTATE or the error's type.
  private static func reason(_ error: any Error) -> String {
    if let error = error as? PSQLError {
      if let state = error.serverInfo?[.sqlState] { return "sqlstate \(state)" }
      return "\(error.code)"
    }
    return "\(type(of: error))"
  }

  /// Whether the tables exist and whether the store is failing, shared by all requests.
  actor State {
    private(set) var migrated = false
    private var migration: Task<Void, any Error>?
    var failing = false

    /// Runs `body` unless it already succeeded; callers arriving while it runs wait for it.
    /// A failed set-up is tried again by the next caller; a successful one never.
    ///
    /// A caller that is cancelled (its operation timed out) cancels the set-up it waits for, so
    /// nobody waits on a database that does not answer; the next caller starts a new one.
    func migrateOnce(_ body: @escaping @Sendable () async throws -> Void) async throws {
      if migrated { return }
      let task = migration ?? Task { try await body() }
      migration = task
      do {
        try await withTaskCancellationHandler {
          try await task.value
        } onCancel: {
          task.cancel()
        }
        migrated = true
        if migration == task { migration = nil }
      } catch {
        if migration == task { migration = nil }
        throw error
      }
    }

    /// Records a success; `true` when the store was failing until now.
    func recordSuccess() -> Bool {
      defer { failing = false }
      return failing
    }

    /// Records a failure; `true` when the store was healthy until now. The set-up is not
    /// forgotten: a failing query is answered with 503s, never with DDL.
    func recordFailure() -> Bool {
      defer { failing = true }
      return !failing
    }
  }
}

/// A shared replay store whose outages the proxy reports: on `/health` (degraded) and as 503
/// `replay_store_unavailable` instead of `replay_cache_full`.
public protocol SharedReplayStore: ReplayCache {
  /// Whether the store answers now (a quick round trip).
  func isAvailable() async -> Bool
}

/// The shared replay store could not answer; the request is refused, never accepted unchecked.
public struct PostgresReplayStoreError: Error, Sendable, CustomStringConvertible {
  /// The operation that failed (`insert`, `rate`, `quota`, `refund`, `sweep`, `migrate`, `health`).
  public let operation: String
  /// Why, without any secret: a timeout, an SQLSTATE or an error type.
  public let reason: String

  /// `"replay store <operation> failed: <reason>"`.
  public var description: String { "replay store \(operation) failed: \(reason)" }
}

/// The former name of ``PostgresSharedStore``, from when it held only the replay cache; kept so
/// that code written against it still builds.
@available(*, deprecated, renamed: "PostgresSharedStore")
public typealias PostgresReplayCache = PostgresSharedStore
