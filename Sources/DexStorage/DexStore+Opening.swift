import Dispatch
import Foundation

extension DexStore {
  /// Opens (creating if needed) the store described by `configuration` without blocking the
  /// caller's executor or Swift's cooperative thread pool.
  ///
  /// ``init(configuration:)`` creates directories, takes the store's lock (waiting up to
  /// ``Configuration/busyTimeout`` for another process), migrates and recovers interrupted
  /// writes: blocking file I/O that must not run on the main actor of a UI, on a server's event
  /// loop, or on one of the few threads that run every Swift task. This runs it on a serial
  /// Dispatch queue of its own (so a thread of its own: on Linux the global queues share their
  /// threads with Swift's cooperative pool) and resumes the caller with the open store.
  ///
  /// - Throws: the same ``DexStoreError``s as ``init(configuration:)``.
  public static func open(configuration: Configuration) async throws -> DexStore {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue(label: "DexStore.open", qos: .userInitiated).async {
        continuation.resume(with: Result { try DexStore(configuration: configuration) })
      }
    }
  }
}
