import Foundation

extension DexStore {
  /// Opens (creating if needed) the store described by `configuration` without blocking the
  /// caller's executor.
  ///
  /// ``init(configuration:)`` creates directories, takes the store's lock (waiting up to
  /// ``Configuration/busyTimeout`` for another process), migrates and recovers interrupted
  /// writes: file I/O that must not run on the main actor of a UI or on a server's event loop.
  /// This runs it on a background task at the caller's priority and returns the open store.
  ///
  /// - Throws: the same ``DexStoreError``s as ``init(configuration:)``.
  public static func open(configuration: Configuration) async throws -> DexStore {
    try await Task.detached(priority: Task.currentPriority) {
      try DexStore(configuration: configuration)
    }.value
  }
}
