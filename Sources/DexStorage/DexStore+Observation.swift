import Foundation
internal import GRDB
import Logging

extension DexStore {
  /// The first page of `query`, now and after every committed change that alters it.
  ///
  /// Writes through this `DexStore` instance are seen at once (GRDB's `ValueObservation`).
  /// Writes by another process, or by another `DexStore` on the same directory, are seen within
  /// ``Configuration/externalChangeCheckInterval``: SQLite's `PRAGMA data_version`, read on a
  /// read-only connection of the observation's own, tells when someone else committed, and the
  /// observation then re-reads the page. Identical consecutive pages are not repeated. The
  /// stream ends with ``DexStoreError/closed`` when the store is closed; cancel it by ending the
  /// iteration.
  public func observe(_ query: DexQuery) -> AsyncThrowingStream<DexPage, any Error> {
    let databasePath = files.databasePath
    guard !lock.isReleased else {
      return AsyncThrowingStream { $0.finish(throwing: DexStoreError.closed) }
    }
    let observation =
      ValueObservation
      .tracking { db in try Self.fetchPage(db, query, after: nil) }
      .removeDuplicates()
    // Pages are handed over from a serial queue of the observation's own rather than GRDB's
    // default `.task` scheduler, which needs a turn of the cooperative pool for every page.
    let values = observation.values(
      in: pool, scheduling: .async(onQueue: DispatchQueue(label: "DexStore.observe")),
      bufferingPolicy: .bufferingNewest(1))
    // The property is settable after init: checked again here.
    let interval = Configuration.usableInterval(configuration.externalChangeCheckInterval)
    let watch = ExternalChangeWatch(
      path: databasePath, pool: pool, lock: lock, busyTimeout: configuration.busyTimeout,
      logger: logger)
    return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
      let task = Task {
        do {
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
              for try await page in values { continuation.yield(page) }
            }
            if let interval {
              group.addTask { try await watch.run(every: interval) }
            }
            // Either child ending (cancelled, failed, or the store closed) ends the stream.
            try await group.next()
            group.cancelAll()
          }
          continuation.finish()
        } catch is CancellationError {
          continuation.finish()
        } catch {
          continuation.finish(throwing: Self.mapError(error, path: databasePath))
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}

/// Turns commits by other connections into GRDB change notifications, so that the one
/// `ValueObservation` re-reads the page (and drops it if unchanged): a single producer, so pages
/// never arrive out of order.
private struct ExternalChangeWatch: Sendable {
  let path: String
  let pool: DatabasePool
  let lock: StoreLock
  let busyTimeout: TimeInterval
  let logger: Logger

  /// Checks `PRAGMA data_version` every `interval` seconds until cancelled; throws
  /// ``DexStoreError/closed`` once the store is closed. A failed check is logged and retried at
  /// the next tick rather than ending the observation.
  func run(every interval: TimeInterval) async throws {
    var watcher: DatabaseQueue?
    defer { try? watcher?.close() }
    // nil until the first check: that one always notifies, so that a commit landing between the
    // observation's first read and this baseline is not missed (an unchanged page is dropped).
    var seen: Int?
    while true {
      guard !lock.isReleased else { throw DexStoreError.closed }
      do {
        let queue = try watcher ?? openWatcher()
        watcher = queue
        let version = try await queue.read { db in
          try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
        }
        if version != seen {
          seen = version
          try await pool.write { db in try db.notifyChanges(in: .fullDatabase) }
        }
      } catch {
        guard !lock.isReleased else { throw DexStoreError.closed }
        logger.debug(
          "Checking for changes by other processes failed; retrying",
          metadata: ["error": "\(error)"])
      }
      try await Task.sleep(for: .seconds(interval))
    }
  }

  private func openWatcher() throws -> DatabaseQueue {
    var readOnly = GRDB.Configuration()
    readOnly.readonly = true
    readOnly.busyMode = .timeout(busyTimeout)
    readOnly.label = "DexStore.observe"
    return try DatabaseQueue(path: path, configuration: readOnly)
  }
}
