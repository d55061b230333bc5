import Foundation
internal import GRDB

extension DexStore {
  /// The first page of `query`, now and after every committed change that alters it.
  ///
  /// Built on GRDB's `ValueObservation`: it sees every write made through this `DexStore`
  /// instance (not writes by other processes until this instance next writes). Identical
  /// consecutive pages are not repeated. Cancel by ending the iteration.
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
    return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
      let task = Task {
        do {
          for try await page in values {
            continuation.yield(page)
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
