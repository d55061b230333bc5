import DexKitTesting
import Foundation
import Testing

@testable import PixScanCore

/// Decisions, undos and emptying the queue sent at once (as several browser tabs or a double
/// click do): the session runs them one at a time, so memory, the database, the folder and the
/// trash agree afterwards.
@Suite("TriageSession under concurrent mutations")
struct TriageSessionConcurrencyTests {
  @Test(arguments: 0..<40)
  func concurrentDecideUndoAndEmptyStayConsistent(round: Int) async throws {
    // Every store write waits up to 2 ms first: the calls interleave as on a slow disk.
    try await PixScanStore.$writeJitterMicroseconds.withValue(2000) {
      try await run(round: round)
    }
  }

  func run(round: Int) async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    let photos: [SamplePhoto] = [.cat, .dog, .fish, .flower, .fruit, .insect]
    try folder.addSamplePhotos(photos)
    let paths = photos.map { "\($0.rawValue).jpg" }
    let trash = data.file("Trash")
    let session = try await TriageSessionTests.open(folder, trash: trash)
    for step in 0..<3 {
      for path in paths { try? await session.decide(path: path, action: .queue) }
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 { group.addTask { _ = try? await session.emptyQueue() } }
        for (index, path) in paths.enumerated() {
          let action: TriageAction = (index + round + step).isMultiple(of: 3) ? .keep : .queue
          group.addTask { try? await session.decide(path: path, action: action) }
          group.addTask { try? await session.decide(path: path, action: .queue) }
          group.addTask { _ = try? await session.undoLast() }
          if index.isMultiple(of: 2) {
            group.addTask { _ = try? await session.emptyQueue() }
            group.addTask { try? await session.unqueue(path: path) }
          }
        }
        group.addTask { _ = try? await session.restoreAll() }
      }
    }
    let progress = await session.progress()
    let inTrash = Set(
      (try? FileManager.default.contentsOfDirectory(atPath: trash + "/files")) ?? [])
    let statuses = try await session.photoPage(offset: 0, limit: 100).items
    #expect(statuses.count == paths.count)
    for status in statuses {
      let trashed = status.decision == .trashed
      // A photo is in the trash exactly when its record says so.
      #expect(trashed == inTrash.contains(status.photo.path), "\(status.photo.path)")
      #expect(trashed != folder.exists(status.photo.path), "\(status.photo.path)")
    }
    #expect(progress.trashed == inTrash.count)
    #expect(progress.kept + progress.queued + progress.trashed == progress.processed)
    // The database says the same as memory.
    let reopened = try await TriageSessionTests.open(folder, trash: trash)
    let again = await reopened.progress()
    #expect(
      [again.total, again.kept, again.queued, again.trashed] as [Int]
        == [progress.total, progress.kept, progress.queued, progress.trashed])
    let reread = try await reopened.photoPage(offset: 0, limit: 100).items
    #expect(reread.map(\.decision) == statuses.map(\.decision))
    // Undoing everything left reaches no trashed photo and ends with an empty history.
    while !(try await reopened.undoLast()).isEmpty {}
    #expect(await reopened.progress().trashed == inTrash.count)
  }

  /// Two swipes on one photo at once: both are stored as two steps, the second seeing the
  /// first, so one undo leaves the first decision (without the serialising lock both read
  /// "undecided" and one undo lost both).
  @Test func twoDecisionsOnOnePhotoAreTwoSteps() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let session = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    for _ in 0..<20 {
      async let first: Void = session.decide(path: "cat.jpg", action: .keep)
      async let second: Void = session.decide(path: "cat.jpg", action: .queue)
      _ = try await (first, second)
      try await session.undoLast()
      let left = try await session.photoPage(offset: 0, limit: 1).items.first?.decision
      #expect(left == .keep || left == .queue)
      try await session.undoLast()
      #expect(try await session.photoPage(offset: 0, limit: 1).items.first?.decision == nil)
    }
    #expect(try await session.undoLast().isEmpty)
  }
}
