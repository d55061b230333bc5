import Foundation
import GRDB
import Testing

@testable import DexStorage

@Suite("DexStore concurrency")
struct DexStoreConcurrencyTests {
  @Test func manyConcurrentTasksInsertReadAndDelete() async throws {
    try await withTemporaryStore { store in
      let ids = try await withThrowingTaskGroup(of: String.self) { group in
        for index in 0..<64 {
          group.addTask {
            let entry = try await store.insert(
              makeEntry("Task \(index)", category: index.isMultiple(of: 2) ? .bird : .fish),
              image: randomImage(1_000 + index))
            _ = try await store.page(DexQuery(category: .bird), after: nil)
            #expect(try await store.imageData(for: entry.id).count == 1_000 + index)
            return entry.id
          }
        }
        var ids: [String] = []
        for try await id in group { ids.append(id) }
        return ids
      }
      #expect(Set(ids).count == 64)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for id in ids.prefix(32) {
          group.addTask {
            try await store.delete(id: id)
            try await store.setNotes("seen", for: ids[ids.count - 1])
          }
        }
        try await group.waitForAll()
      }
      #expect(try await store.count() == 32)
      #expect(try await store.countsByCategory().values.reduce(0, +) == 32)
      #expect(try await store.verifyIntegrity().isHealthy)
    }
  }

  /// Two stores on one directory stand in for two processes: separate connections, separate
  /// locks; the WAL keeps both consistent.
  @Test func twoStoresOnOneDirectoryInterleaveSafely() async throws {
    try await withTemporaryDirectory { dir in
      let first = try openStore(dir)
      let second = try openStore(dir)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (name, store) in [("first", first), ("second", second)] {
          group.addTask {
            for index in 0..<20 {
              try await store.insert(makeEntry("\(name) \(index)"), image: randomImage(500))
            }
          }
        }
        try await group.waitForAll()
      }
      #expect(try await first.count() == 40)
      #expect(try await second.count() == 40)
      try first.close()
      try second.close()
      let reopened = try openStore(dir)
      #expect(try await reopened.verifyIntegrity().isHealthy)
    }
  }

  /// A writer that holds SQLite's write lock longer than the timeout yields a clear `busy`.
  @Test func heldWriteLockGivesBusyAfterTheTimeout() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir, busyTimeout: 0.3)
      let other = try DatabaseQueue(path: dir.appendingPathComponent("Dex.sqlite").path)
      try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
        // A thread of its own: it blocks on the semaphore while holding the lock, which on a
        // cooperative thread would take one of only two away from every other test.
        Thread {
          do {
            try other.inTransaction(.immediate) { _ in
              let semaphore = DispatchSemaphore(value: 0)
              Task {
                await #expect(
                  throws: DexStoreError.busy(
                    path: dir.appendingPathComponent("Dex.sqlite").standardizedFileURL.path)
                ) {
                  try await store.insert(makeEntry("Blocked"), image: randomImage())
                }
                semaphore.signal()
              }
              semaphore.wait()
              return .rollback
            }
            done.resume()
          } catch {
            done.resume(throwing: error)
          }
        }.start()
      }
      try await store.insert(makeEntry("Later"), image: randomImage())
      #expect(try await store.count() == 1)
      #expect(filesUnder(dir.appendingPathComponent("tmp")).isEmpty)
    }
  }
}
