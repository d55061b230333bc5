import DexKitTesting
import Foundation
import PixScanCore
import Testing

/// Decisions, undos and emptying the queue sent at once (as several browser tabs or a double
/// click do): the session runs them one at a time, so memory, the database, the folder and the
/// trash agree afterwards.
@Suite("TriageSession under concurrent mutations")
struct TriageSessionConcurrencyTests {
  @Test(arguments: 0..<12)
  func concurrentDecideUndoAndEmptyStayConsistent(round: Int) async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    let photos: [SamplePhoto] = [.cat, .dog, .fish, .flower, .fruit, .insect]
    try folder.addSamplePhotos(photos)
    let paths = photos.map { "\($0.rawValue).jpg" }
    let trash = data.file("Trash")
    let session = try await TriageSessionTests.open(folder, trash: trash)
    for step in 0..<3 {
      await withTaskGroup(of: Void.self) { group in
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
  }
}
