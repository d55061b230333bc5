import Foundation
internal import GRDB

extension DexStore {
  /// The first page of `query`, now and after every committed change that alters it.
  ///
  /// Writes through this `DexStore` instance are seen at once (GRDB's `ValueObservation`).
  /// Writes by another process, or by another `DexStore` on the same directory, are seen within
  /// ``Configuration/externalChangeCheckInterval`` (SQLite's `PRAGMA data_version`, checked on a
  /// read-only connection of the observation's own). Identical consecutive pages are not
  /// repeated. Cancel by ending the iteration.
  public func observe(_ query: DexQuery) -> AsyncThrowingStream<DexPage, any Error> {
    let databasePath = files.databasePath
    guard !lock.isReleased else {
      return AsyncThrowingStream { $0.finish(throwing: DexStoreError.closed) }
    }
    let observation =
      ValueObservation
      .tracking { db in try Self.fetchPage(db, query, after: nil) }
      .removeDuplicates()
    let values = observation.values(in: pool, bufferingPolicy: .bufferingNewest(1))
    // The property is settable after init: checked again here.
    let interval = Configuration.usableInterval(configuration.externalChangeCheckInterval)
    let pool = self.pool
    return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
      let delivery = PageDelivery(continuation)
      let task = Task {
        do {
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
              for try await page in values { delivery.yield(page) }
            }
            if let interval {
              group.addTask {
                try await Self.pollExternalChanges(
                  path: databasePath, every: interval, pool: pool, query: query,
                  delivery: delivery)
              }
            }
            // The GRDB observation ends only when cancelled or failed; either ends the stream.
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

  /// Re-reads the page whenever `PRAGMA data_version` on a private read-only connection says
  /// that another connection committed, until cancelled.
  private static func pollExternalChanges(
    path: String, every interval: TimeInterval, pool: DatabasePool, query: DexQuery,
    delivery: PageDelivery
  ) async throws {
    var readOnly = GRDB.Configuration()
    readOnly.readonly = true
    readOnly.label = "DexStore.observe"
    let watcher = try DatabaseQueue(path: path, configuration: readOnly)
    defer { try? watcher.close() }
    func dataVersion() throws -> Int {
      try watcher.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
    var seen = try dataVersion()
    while true {
      try await Task.sleep(for: .seconds(interval))
      let version = try dataVersion()
      guard version != seen else { continue }
      seen = version
      delivery.yield(try await pool.read { db in try fetchPage(db, query, after: nil) })
    }
  }
}

/// Hands pages from the two observers to one stream, dropping a page equal to the last one.
private final class PageDelivery: @unchecked Sendable {
  private let continuation: AsyncThrowingStream<DexPage, any Error>.Continuation
  private let mutex = NSLock()
  private var last: DexPage?

  init(_ continuation: AsyncThrowingStream<DexPage, any Error>.Continuation) {
    self.continuation = continuation
  }

  func yield(_ page: DexPage) {
    mutex.lock()
    defer { mutex.unlock() }
    guard page != last else { return }
    last = page
    continuation.yield(page)
  }
}
