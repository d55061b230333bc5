import DexImaging
import DexKitTesting
import Foundation
import Logging
import Synchronization
import Testing

@testable import PixScanCore

@Suite("TriageSession: subset delete, pending text, start over, tutorial")
struct DeleteQueueTests {
  /// A photo swiped down (read text, then delete) whose recognition has not started yet when
  /// the queue is emptied: emptying waits for it, so its text is read from the file before the
  /// file goes to the trash.
  @Test func emptyingTheQueueKeepsTheTextStillBeingRead() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    try folder.addSamplePhotos([.cat, .dog])
    let recognizer = GatedTextRecognizer(line: "HELD TEXT")
    let session = try await TriageSessionTests.open(
      folder, trash: data.file("Trash"), limits: PixScanLimits(maximumConcurrentRecognitions: 1),
      recognizer: recognizer)
    // cat's recognition takes the only recognition slot and is held in the engine ...
    try await session.decide(path: "cat.jpg", action: .recognizeAndKeep)
    await recognizer.gate.firstArrival()
    // ... so dog's waits for the slot: its file is not read yet.
    try await session.decide(path: "dog.jpg", action: .recognizeAndQueue)
    let gate = recognizer.gate
    await session.setBeforeWaitingForRecognitions { await gate.open() }
    let report = try await session.emptyQueue()
    await gate.open()
    await session.waitForRecognitions()
    #expect(report.moved == ["dog.jpg"])
    #expect(!folder.exists("dog.jpg"))
    let texts = try await session.textPage(query: "", offset: 0, limit: 10).items
    #expect(texts.map(\.path) == ["cat.jpg", "dog.jpg"])
    #expect(texts.allSatisfy { $0.text == "HELD TEXT" })
    #expect(await session.progress().recognitionNote == nil)
  }

  /// A recognition asked for while the queue is emptied (the page never sends one then, a
  /// script may) waits its turn: it does not read the photo in the middle of its move, and is
  /// refused once the photo is in the trash, so no text is stored for it.
  @Test func aRecognitionAskedForDuringAMoveWaitsItsTurn() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    try folder.addSamplePhotos([.cat, .dog])
    let session = try await TriageSessionTests.open(
      folder, trash: data.file("Trash"), recognizer: ScriptedTextRecognizer(lines: ["TEXT"]))
    try await session.decide(path: "dog.jpg", action: .queue)
    let asked = Mutex<Task<Void, any Error>?>(nil)
    await session.setBeforeMove { path in
      asked.withLock { $0 = Task { try await session.recognize(path: path) } }
      // Time for a recognition that did not wait its turn to start and read the file.
      try? await Task.sleep(for: .milliseconds(300))
    }
    #expect(try await session.emptyQueue().moved == ["dog.jpg"])
    let task = try #require(asked.withLock { $0 })
    await #expect(throws: PixScanError.badRequest("“dog.jpg” is in the trash")) {
      try await task.value
    }
    await session.waitForRecognitions()
    #expect(try await session.textPage(query: "", offset: 0, limit: 10).total == 0)
    #expect(await session.progress().recognitionNote == nil)
  }

  /// Only the chosen queued photos go to the trash; the others stay queued.
  @Test func movingASubsetLeavesTheRestQueued() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    try folder.addSamplePhotos([.cat, .dog, .flower])
    let session = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    for path in ["cat.jpg", "dog.jpg", "flower.jpg"] {
      try await session.decide(path: path, action: .queue)
    }
    let report = try await session.emptyQueue(paths: ["dog.jpg", "not-queued.jpg"])
    #expect(report.moved == ["dog.jpg"])
    #expect(!folder.exists("dog.jpg") && folder.exists("cat.jpg") && folder.exists("flower.jpg"))
    #expect(FileManager.default.fileExists(atPath: data.file("Trash/files/dog.jpg")))
    let queue = try await session.queuePage(offset: 0, limit: 10)
    #expect(Set(queue.items.map(\.photo.path)) == ["cat.jpg", "flower.jpg"])
    let progress = await session.progress()
    #expect([progress.queued, progress.trashed, progress.queueCount] as [Int] == [2, 1, 2])
  }

  /// Start over forgets decisions, texts, the queue and the tutorial flag, and never touches
  /// the trash; it lasts across reopening.
  @Test func startOverForgetsAllButTheTrash() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    try folder.addSamplePhotos([.cat, .dog, .flower])
    do {
      let session = try await TriageSessionTests.open(
        folder, trash: data.file("Trash"), recognizer: ScriptedTextRecognizer(lines: ["TEXT"]))
      #expect(try await session.isTutorialSeen() == false)
      try await session.markTutorialSeen()
      try await session.decide(path: "cat.jpg", action: .queue)
      #expect(try await session.emptyQueue().moved == ["cat.jpg"])
      try await session.decide(path: "dog.jpg", action: .recognizeAndQueue)
      try await session.decide(path: "flower.jpg", action: .keep)
      await session.waitForRecognitions()
      #expect(try await session.isTutorialSeen())
      try await session.startOver()
      #expect(try await session.isTutorialSeen() == false)
      let progress = await session.progress()
      #expect(
        [progress.processed, progress.kept, progress.queued, progress.trashed, progress.recognized]
          as [Int] == [1, 0, 0, 1, 0])
      #expect(!progress.canUndo)
      #expect(await session.upcoming(count: 5).map(\.path) == ["dog.jpg", "flower.jpg"])
    }
    #expect(FileManager.default.fileExists(atPath: data.file("Trash/files/cat.jpg")))
    let reopened = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    #expect(try await reopened.textPage(query: "", offset: 0, limit: 10).total == 0)
    #expect(await reopened.progress().trashed == 1)
    #expect(try await reopened.isTutorialSeen() == false)
  }

  /// The preview's description: size, time and upright dimensions.
  @Test func photoInfoGivesTheDimensions() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    try folder.addSamplePhotos([.cat])
    let session = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    let info = try await session.photoInfo(path: "cat.jpg")
    let decoded = try await ImageDownscaler().downscale(
      try SamplePhoto.cat.data, options: DownscaleOptions(maximumDimension: 64))
    let swapped = decoded.appliedOrientation.swapsDimensions
    #expect(info.pixelWidth == (swapped ? decoded.sourcePixelHeight : decoded.sourcePixelWidth))
    #expect(info.pixelHeight == (swapped ? decoded.sourcePixelWidth : decoded.sourcePixelHeight))
    #expect(info.pixelWidth > 0 && info.format == "jpeg")
    #expect(info.photo.byteCount == Int64(try SamplePhoto.cat.data.count))
  }
}
