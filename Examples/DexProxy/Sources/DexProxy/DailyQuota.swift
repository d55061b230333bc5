import Crypto
import Foundation
import PostgresNIO

/// Counts `/vision` calls per subject (install) per UTC day, for `DEX_PROXY_DAILY_QUOTA`.
public protocol DailyQuotaStore: Sendable {
  /// Counts one call for `subject` on the UTC day of `date` if fewer than `limit` were counted.
  ///
  /// - Returns: `true` if the call fits in the quota (and was counted), `false` if the quota is
  ///   spent.
  /// - Throws: when the store cannot answer; the request is then refused (fail closed).
  func consume(subject: String, on date: Date, limit: Int) async throws -> Bool

  /// Gives back one call counted for `subject` on the UTC day of `date` (never below zero):
  /// the proxy refunds a call whose upstream request failed, so a client retrying after a 502
  /// or 504 does not spend its quota on answers it never got.
  ///
  /// - Throws: when the store cannot answer; the call then stays counted.
  func refund(subject: String, on date: Date) async throws
}

/// The in-process ``DailyQuotaStore`` used without PostgreSQL: counts for the current UTC day
/// only (older days are dropped when the day changes), for at most ``maximumKeys`` keys a day.
public actor InMemoryDailyQuota: DailyQuotaStore {
  /// Why a call was not counted: the day's table holds ``InMemoryDailyQuota/maximumKeys`` keys.
  public struct TableFull: Error, CustomStringConvertible {
    /// The table's size.
    public let maximumKeys: Int
    /// Says that the table is full, and its size.
    public var description: String { "the daily quota table is full (\(maximumKeys) keys)" }
  }

  /// The most keys (subjects, addresses, hours) counted in one day: past it a new key's call is
  /// refused (the store cannot answer, so the request is refused: fail closed) rather than the
  /// table growing with every address a client has until midnight. Keys whose count a refund
  /// brings back to zero leave the table.
  public let maximumKeys: Int
  private var day = ""
  private var used: [String: Int] = [:]

  /// Creates an empty counter for at most `maximumKeys` keys a day (1 000 000 by default, some
  /// 100 MB at most).
  public init(maximumKeys: Int = 1_000_000) {
    self.maximumKeys = max(1, maximumKeys)
  }

  /// See ``DailyQuotaStore/consume(subject:on:limit:)``.
  ///
  /// - Throws: ``TableFull`` for a key not yet counted today when the table is full.
  public func consume(subject: String, on date: Date, limit: Int) async throws -> Bool {
    let today = DailyQuota.day(of: date)
    if today != day {
      day = today
      used.removeAll()
    }
    let count = used[subject, default: 0]
    guard count < limit else { return false }
    if count == 0, used.count >= maximumKeys { throw TableFull(maximumKeys: maximumKeys) }
    used[subject] = count + 1
    return true
  }

  /// See ``DailyQuotaStore/refund(subject:on:)``.
  public func refund(subject: String, on date: Date) async throws {
    guard DailyQuota.day(of: date) == day, let count = used[subject], count > 0 else { return }
    used[subject] = count > 1 ? count - 1 : nil
  }

  /// How many keys are counted today (for tests).
  public var keyCount: Int { used.count }
}

extension PostgresSharedStore: DailyQuotaStore {
  /// Counts one call in table `dex_proxy_quota` (one row per subject hash and UTC day) with one
  /// atomic `INSERT … ON CONFLICT DO UPDATE … WHERE used < limit RETURNING`: a row comes back
  /// only when the call fits, whichever instance counts it.
  public func consume(subject: String, on date: Date, limit: Int) async throws -> Bool {
    let hash = ByteBuffer(bytes: SHA256.hash(data: Data(subject.utf8)))
    let day = DailyQuota.day(of: date)
    return try await perform("quota") {
      try await self.migrateIfNeeded()
      let rows = try await self.client.query(
        """
        INSERT INTO dex_proxy_quota AS q (subject_hash, day, used)
        VALUES (\(hash), \(day)::date, 1)
        ON CONFLICT (subject_hash, day) DO UPDATE SET used = q.used + 1
        WHERE q.used < \(limit)
        RETURNING used
        """)
      var counted = false
      for try await _ in rows { counted = true }
      return counted && limit > 0
    }
  }

  /// Gives back one call in `dex_proxy_quota` with one `UPDATE … WHERE used > 0`.
  public func refund(subject: String, on date: Date) async throws {
    let hash = ByteBuffer(bytes: SHA256.hash(data: Data(subject.utf8)))
    let day = DailyQuota.day(of: date)
    try await perform("refund") {
      try await self.migrateIfNeeded()
      try await self.client.query(
        """
        UPDATE dex_proxy_quota SET used = used - 1
        WHERE subject_hash = \(hash) AND day = \(day)::date AND used > 0
        """)
    }
  }
}

/// Helpers for the UTC day a quota counts in.
enum DailyQuota {
  /// `yyyy-MM-dd` of `date` in UTC.
  static func day(of date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
  }

  /// Whole seconds from `date` to the next UTC midnight (at least 1).
  static func secondsUntilNextDay(from date: Date) -> Int {
    let seconds = Int(date.timeIntervalSince1970.rounded(.down))
    return max(1, 86_400 - seconds % 86_400)
  }
}
