import DexImaging
import DexKitTesting
import Foundation
import Logging
import PixScanCore
import Testing

@Suite("TriageSession: decisions, persistence, queue, trash, text")
struct TriageSessionTests {
  static func open(
    _ folder: TemporaryFolder, trash: String, limits: PixScanLimits = PixScanLimits(),
    recognizer: any TextRecognizing = UnavailableTextRecognizer(reason: "none in this test")
  ) async throws -> TriageSession {
    var quiet = Logger(label: "pixscan-test")
    quiet.logLevel = .critical
    return try await TriageSession(
      folder: folder.path, limits: limits, imaging: ImageDownscaler(), recognizer: recognizer,
      trash: FreedesktopTrash(directory: trash), logger: quiet)
  }

  /// Recognised text belongs to the file it was read from: another size, time or path is
  /// another photo.
  @Test func textBelongsToTheFileItWasReadFrom() {
    let photo = Photo(path: "a.jpg", byteCount: 10, modifiedMilliseconds: 5, isScreenshot: false)
    let entry = TextEntry(
      path: "a.jpg", byteCount: 10, modifiedMilliseconds: 5, text: "x", lineCount: 1,
      recognizedAt: 0)
    #expect(entry.matches(photo))
    for other in [
      Photo(path: "a.jpg", byteCount: 11, modifiedMilliseconds: 5, isScreenshot: false),
      Photo(path: "a.jpg", byteCount: 10, modifiedMilliseconds: 6, isScreenshot: false),
      Photo(path: "b.jpg", byteCount: 10, modifiedMilliseconds: 5, isScreenshot: false),
    ] {
      #expect(!entry.matches(other), "\(other)")
    }
  }

  @Test func decisionsSurviveReopeningAndThePhotoIsTheSame() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog, .flower, .fruit])
    do {
      let session = try await Self.open(folder, trash: data.file("Trash"))
      #expect(
        await session.upcoming(count: 10).map(\.path) == [
          "cat.jpg", "dog.jpg", "flower.jpg", "fruit.jpg",
        ])
      try await session.decide(path: "cat.jpg", action: .keep)
      try await session.decide(path: "dog.jpg", action: .queue)
    }
    #expect(folder.exists(".pixscan/pixscan.sqlite"))
    let reopened = try await Self.open(folder, trash: data.file("Trash"))
    #expect(await reopened.upcoming(count: 1).map(\.path) == ["flower.jpg"])
    let progress = await reopened.progress()
    #expect(
      [progress.total, progress.processed, progress.kept, progress.queued] as [Int] == [4, 2, 1, 1])
    let dogBytes = Int64(try SamplePhoto.dog.data.count)
    #expect(progress.queueByteCount == dogBytes)
    #expect(progress.canUndo)
  }

  /// Listing again while open: a photo copied in appears, a removed one goes, a trashed one
  /// stays counted, and the decisions of the others are kept; undoing the removed photo's
  /// decision afterwards does not bring its card back.
  @Test func aRescanSeesPhotosAddedAndRemovedSinceOpening() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    try folder.addSamplePhotos([.cat, .dog, .flower])
    let session = try await Self.open(folder, trash: data.file("Trash"))
    for (path, action) in [("cat.jpg", TriageAction.keep), ("dog.jpg", .queue)] {
      try await session.decide(path: path, action: action)
    }
    #expect(try await session.emptyQueue().moved.count == 1)
    try await session.decide(path: "flower.jpg", action: .keep)
    try FileManager.default.removeItem(atPath: folder.file("flower.jpg"))
    _ = try folder.write(try SamplePhoto.fruit.data, to: "new/fruit.jpg")
    #expect(await session.progress().total == 3, "unchanged before the rescan")
    try await session.rescan()
    let progress = await session.progress()
    #expect(
      [progress.total, progress.processed, progress.kept, progress.trashed] as [Int] == [
        3, 2, 1, 1,
      ])
    #expect(await session.upcoming(count: 10).map(\.path) == ["new/fruit.jpg"])
    let page = try await session.photoPage(filter: .all, offset: 0, limit: 10)
    #expect(page.items.map(\.photo.path) == ["cat.jpg", "dog.jpg", "new/fruit.jpg"])
    #expect(try await session.undoLast() == ["flower.jpg"])
    #expect(await session.upcoming(count: 10).map(\.path) == ["new/fruit.jpg"])
    #expect(await session.progress().total == 3)
  }

  @Test func aChangedFileIsANewPhotoAndTheListingSkipsHiddenAndLinks() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try folder.write(Data("not a photo".utf8), to: "notes.txt")
    try folder.write(try SamplePhoto.dog.data, to: ".hidden/dog.jpg")
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("link.jpg"), withDestinationPath: folder.file("cat.jpg"))
    let session = try await Self.open(folder, trash: data.file("Trash"))
    #expect(await session.upcoming(count: 10).map(\.path) == ["cat.jpg"])
    try await session.decide(path: "cat.jpg", action: .keep)
    #expect(await session.upcoming(count: 10).isEmpty)
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: folder.file("cat.jpg")
    )
    #expect(await session.upcoming(count: 10).map(\.path).isEmpty)
    // The next request about it sees the new time: undecided again.
    await #expect(throws: Never.self) {
      _ = try await session.thumbnail(path: "cat.jpg", size: .small)
    }
    #expect(await session.upcoming(count: 10).map(\.path) == ["cat.jpg"])
  }

  @Test func undoRevertsTheLastStepOnly() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog, .flower])
    let session = try await Self.open(folder, trash: data.file("Trash"))
    try await session.decide(path: "cat.jpg", action: .queue)
    try await session.decide(path: "dog.jpg", action: .queue)
    try await session.restoreAll()
    #expect(await session.progress().kept == 2)
    #expect(try await session.undoLast() == ["dog.jpg", "cat.jpg"])
    #expect(await session.progress().queued == 2)
    #expect(try await session.undoLast() == ["dog.jpg"])
    #expect(await session.upcoming(count: 1).map(\.path) == ["dog.jpg"])
    try await session.unqueue(path: "cat.jpg")
    #expect(await session.progress().processed == 0)
    await #expect(throws: PixScanError.badRequest("“cat.jpg” is not in the delete queue")) {
      try await session.unqueue(path: "cat.jpg")
    }
    #expect(try await session.undoLast() == ["cat.jpg"])
    #expect(await session.progress().queued == 1)
  }

  @Test func emptyingTheQueueMovesOnlyQueuedPhotosToTheTrash() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog, .flower])
    let session = try await Self.open(folder, trash: data.file("Trash"))
    try await session.decide(path: "cat.jpg", action: .queue)
    try await session.decide(path: "dog.jpg", action: .keep)
    try await session.decide(path: "flower.jpg", action: .queue)
    let report = try await session.emptyQueue()
    #expect(report.moved.sorted() == ["cat.jpg", "flower.jpg"])
    #expect(report.failures.isEmpty)
    #expect(!folder.exists("cat.jpg") && !folder.exists("flower.jpg") && folder.exists("dog.jpg"))
    #expect(data.exists("Trash/files/cat.jpg") && data.exists("Trash/info/cat.jpg.trashinfo"))
    let progress = await session.progress()
    #expect([progress.trashed, progress.queued, progress.processed] as [Int] == [2, 0, 3])
    // Trashed photos cannot be undone from here, and stay counted after reopening.
    #expect(try await session.undoLast() == ["dog.jpg"])
    let reopened = try await Self.open(folder, trash: data.file("Trash"))
    let again = await reopened.progress()
    #expect([again.total, again.trashed, again.processed] as [Int] == [3, 2, 2])
  }

  @Test func aPhotoChangedAfterQueueingStaysInTheFolder() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let session = try await Self.open(folder, trash: data.file("Trash"))
    try await session.decide(path: "cat.jpg", action: .queue)
    try (try SamplePhoto.dog.data).write(to: URL(fileURLWithPath: folder.file("cat.jpg")))
    let report = try await session.emptyQueue()
    #expect(report.moved.isEmpty)
    #expect(folder.exists("cat.jpg"))
  }

  @Test func recognisedTextIsStoredSearchableAndExported() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog])
    let session = try await Self.open(
      folder, trash: data.file("Trash"), recognizer: ScriptedTextRecognizer(lines: ["RECEIPT 42"]))
    try await session.decide(path: "cat.jpg", action: .recognizeAndKeep)
    try await session.decide(path: "dog.jpg", action: .recognizeAndQueue)
    await session.waitForRecognitions()
    let progress = await session.progress()
    #expect([progress.recognized, progress.kept, progress.queued] as [Int] == [2, 1, 1])
    #expect(try await session.textPage(query: "receipt", offset: 0, limit: 10).total == 2)
    #expect(
      try await session.textPage(query: "dog", offset: 0, limit: 10).items.map(\.path) == [
        "dog.jpg"
      ])
    #expect(try await session.textPage(query: "absent", offset: 0, limit: 10).total == 0)
    let text = await session.exportedText()
    #expect(text.contains("== cat.jpg ==\nRECEIPT 42"))
    let reopened = try await Self.open(folder, trash: data.file("Trash"))
    #expect(await reopened.exportedText() == text)
  }

  @Test func unavailableRecognitionIsReportedNotFaked() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let session = try await Self.open(folder, trash: data.file("Trash"))
    try await session.decide(path: "cat.jpg", action: .recognizeAndKeep)
    await session.waitForRecognitions()
    let progress = await session.progress()
    #expect(progress.recognized == 0)
    #expect(progress.recognitionNote?.contains("not available") == true)
    #expect(progress.kept == 1)
    #expect(await session.exportedText().isEmpty)
  }

  @Test func thumbnailsAreCachedForThePrefetch() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let session = try await Self.open(folder, trash: data.file("Trash"))
    let first = try await session.thumbnail(path: "cat.jpg", size: .card)
    let second = try await session.thumbnail(path: "cat.jpg", size: .card)
    #expect(first == second)
    #expect(first.starts(with: [0xFF, 0xD8]))
    let statistics = await session.thumbnailStatistics()
    #expect([statistics.hits, statistics.misses] as [Int] == [1, 1])
  }

  @Test func limitsAreKept() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog, .flower])
    let dogBytes = try SamplePhoto.dog.data.count
    let catBytes = Int64(try SamplePhoto.cat.data.count)
    let tight = PixScanLimits(
      maximumPhotoCount: 2, maximumPhotoByteCount: dogBytes,
      decoding: DecodingLimits(maximumPixelCount: 100), maximumPageSize: 5)
    let session = try await Self.open(folder, trash: data.file("Trash"), limits: tight)
    let progress = await session.progress()
    #expect(progress.total == 2)
    #expect(progress.isTruncated)
    await #expect(
      throws: PixScanError.photoTooLarge(
        path: "cat.jpg", byteCount: catBytes, maximumByteCount: dogBytes)
    ) {
      try await session.thumbnail(path: "cat.jpg", size: .small)
    }
    await #expect {
      try await session.thumbnail(path: "dog.jpg", size: .small)
    } throws: { error in
      guard case .imaging(_, .imageTooLarge) = error as? PixScanError else { return false }
      return true
    }
    await #expect(throws: PixScanError.badRequest("limit must be within 1...5")) {
      try await session.photoPage(offset: 0, limit: 6)
    }
    await #expect(throws: PixScanError.badRequest("offset must not be negative")) {
      try await session.queuePage(offset: -1, limit: 1)
    }
    await #expect(throws: PixScanError.notFound("flower.jpg")) {
      try await session.decide(path: "flower.jpg", action: .keep)
    }
  }

  @Test func foldersDeeperThanTheLimitAreNotListed() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    let photo = try SamplePhoto.cat.data
    try folder.write(photo, to: "top.jpg")
    try folder.write(photo, to: "a/one.jpg")
    try folder.write(photo, to: "a/b/two.jpg")
    let session = try await Self.open(
      folder, trash: data.file("Trash"), limits: PixScanLimits(maximumDepth: 1))
    #expect(await session.upcoming(count: 10).map(\.path) == ["a/one.jpg", "top.jpg"])
    await #expect(throws: PixScanError.notFound("a/b/two.jpg")) {
      try await session.decide(path: "a/b/two.jpg", action: .keep)
    }
  }

  @Test func theScreenshotsFilterSharesDecisions() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try folder.write(try SamplePhoto.dog.data, to: "Screenshot 1.jpg")
    let session = try await Self.open(folder, trash: data.file("Trash"))
    #expect(
      await session.upcoming(filter: .screenshots, count: 5).map(\.path) == ["Screenshot 1.jpg"])
    try await session.decide(path: "Screenshot 1.jpg", action: .keep)
    #expect(await session.upcoming(filter: .screenshots, count: 5).isEmpty)
    #expect(await session.upcoming(filter: .all, count: 5).map(\.path) == ["cat.jpg"])
    let progress = await session.progress(filter: .screenshots)
    #expect([progress.total, progress.kept] as [Int] == [1, 1])
  }
}
