import DexImaging
import DexKitTesting
import Foundation
import GRDB
import Logging
import Testing

@testable import PixScanCore

#if canImport(Glibc)
  import Glibc
#endif

/// Crashes between the trash move and the database, bounded work, files swapped under the
/// session, and a damaged database.
@Suite("PixScan robustness: interrupted moves, limits, swapped files, damaged database")
struct PixScanRobustnessTests {
  /// The database of `folder`, opened directly (as another process or a crash would leave it).
  static func database(_ folder: TemporaryFolder) throws -> DatabaseQueue {
    try DatabaseQueue(path: folder.file(".pixscan/pixscan.sqlite"))
  }

  /// A trash name read back from the folder's database that no trash would give (one with a
  /// NUL, which C calls stop at, or a path) is never used: another photo's restore record in the
  /// user's trash survives the reopening that settles it.
  @Test(arguments: ["keep.jpg.trashinfo\u{0}", "../info/keep.jpg", "."])
  func aHostileTrashNameTouchesNothingInTheTrash(name: String) async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let trashPath = data.file("Trash")
    do {
      let session = try await TriageSessionTests.open(folder, trash: trashPath)
      try await session.decide(path: "cat.jpg", action: .queue)
    }
    try FileManager.default.createDirectory(
      atPath: data.file("Trash/info"), withIntermediateDirectories: true)
    try Data("[Trash Info]\n".utf8).write(
      to: URL(fileURLWithPath: data.file("Trash/info/keep.jpg.trashinfo")))
    try await Self.database(folder).write { db in
      try db.execute(
        sql: "INSERT INTO trashing (path, trashName) VALUES (?, ?)", arguments: ["cat.jpg", name])
    }
    _ = try await TriageSessionTests.open(folder, trash: trashPath)
    #expect(data.exists("Trash/info/keep.jpg.trashinfo"))
    #expect(folder.exists("cat.jpg"))
  }

  @Test func anInterruptedMoveIsSettledOnReopening() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog, .fish])
    let trashPath = data.file("Trash")
    do {
      let session = try await TriageSessionTests.open(folder, trash: trashPath)
      for path in ["cat.jpg", "dog.jpg", "fish.jpg"] {
        try await session.decide(path: path, action: .queue)
      }
    }
    let trash = FreedesktopTrash(directory: trashPath)
    // cat.jpg: the crash fell after the rename; dog.jpg: before it.
    let cat = try trash.reserve(folder.file("cat.jpg"), displayPath: "cat.jpg")
    try trash.move(folder.file("cat.jpg"), to: cat, displayPath: "cat.jpg")
    let dog = try trash.reserve(folder.file("dog.jpg"), displayPath: "dog.jpg")
    try await Self.database(folder).write { db in
      for (path, name) in [("cat.jpg", cat), ("dog.jpg", dog)] {
        try db.execute(
          sql: "INSERT INTO trashing (path, trashName) VALUES (?, ?)", arguments: [path, name])
      }
    }
    let reopened = try await TriageSessionTests.open(folder, trash: trashPath)
    let progress = await reopened.progress()
    #expect([progress.total, progress.trashed, progress.queued] as [Int] == [3, 1, 2])
    #expect(
      try await reopened.queuePage(offset: 0, limit: 10).items.map(\.photo.path).sorted()
        == ["dog.jpg", "fish.jpg"])
    #expect(
      !data.exists("Trash/info/dog.jpg.trashinfo") && data.exists("Trash/info/cat.jpg.trashinfo"))
    #expect(folder.exists("dog.jpg") && !folder.exists("cat.jpg"))
    let left = try await Self.database(folder).read { db in
      try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM trashing")
    }
    #expect(left == 0)
    // The trashed photo's queueing is no longer undoable; the others' is.
    #expect(try await reopened.undoLast() == ["fish.jpg"])
    #expect(try await reopened.undoLast() == ["dog.jpg"])
    #expect(try await reopened.undoLast() == [])
  }

  /// Counts how many recognitions run at once.
  actor Gauge {
    var current = 0
    var peak = 0
    func enter() {
      current += 1
      peak = max(peak, current)
    }
    func leave() { current -= 1 }
  }

  struct SlowRecognizer: TextRecognizing {
    let gauge: Gauge
    func recognizeText(
      in image: RGBImage, options: TextRecognitionOptions
    ) async throws -> RecognizedText {
      await gauge.enter()
      try? await Task.sleep(for: .milliseconds(100))
      await gauge.leave()
      return RecognizedText(lines: [])
    }
  }

  @Test func recognitionsAndDecodesRunAtMostTwoAtOnce() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    let photos = SamplePhoto.allCases
    try folder.addSamplePhotos(photos)
    let gauge = Gauge()
    let session = try await TriageSessionTests.open(
      folder, trash: data.file("Trash"), recognizer: SlowRecognizer(gauge: gauge))
    for photo in photos {
      try await session.decide(path: "\(photo.rawValue).jpg", action: .recognizeAndKeep)
    }
    await session.waitForRecognitions()
    let peak = await gauge.peak
    #expect(peak >= 1 && peak <= 2)
    #expect(await session.progress().recognized == photos.count)
    await withTaskGroup(of: Void.self) { group in
      for photo in photos {
        group.addTask {
          _ = try? await session.thumbnail(path: "\(photo.rawValue).jpg", size: .full)
        }
      }
    }
    let decodes = await session.thumbnails.peakConcurrentDecodes
    #expect(decodes >= 1 && decodes <= 2)
    #expect(await session.thumbnailStatistics().misses == photos.count)
  }

  /// A downscaler that counts how many downscales run at once, each held 50 ms.
  final class CountingImaging: ImageDownscaling, ImageDecoding, @unchecked Sendable {
    private let real = ImageDownscaler()
    private let lock = NSLock()
    private var running = 0  // guarded by `lock`
    private var most = 0  // guarded by `lock`

    /// The most downscales that ran at once.
    var peak: Int { lock.withLock { most } }

    func downscale(
      _ imageData: Data, options: DownscaleOptions
    ) throws(ImagingError) -> DownscaledImage {
      lock.withLock {
        running += 1
        most = max(most, running)
      }
      defer { lock.withLock { running -= 1 } }
      usleep(50_000)
      return try real.downscale(imageData, options: options)
    }

    func decodePixels(
      from imageData: Data, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> RGBImage {
      try real.decodePixels(from: imageData, target: target, options: options)
    }
  }

  /// The queue preview's photo information reads and decodes in turn with the thumbnails, at
  /// most `maximumConcurrentDecodes` at once (one here: the async decodes run on Swift's pool,
  /// as wide as the machine's cores, so a limit of two could not be told apart from no limit on
  /// two cores), however many previews are asked for together.
  @Test func photoInformationDecodesInTurnWithTheThumbnails() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    let photos = SamplePhoto.allCases
    try folder.addSamplePhotos(photos)
    let imaging = CountingImaging()
    var quiet = Logger(label: "pixscan-test")
    quiet.logLevel = .critical
    let session = try await TriageSession(
      folder: folder.path, limits: PixScanLimits(maximumConcurrentDecodes: 1), imaging: imaging,
      recognizer: UnavailableTextRecognizer(reason: "none in this test"),
      trash: FreedesktopTrash(directory: data.file("Trash")), logger: quiet)
    let answered = await withTaskGroup(of: Bool.self) { group in
      for photo in photos {
        group.addTask { (try? await session.photoInfo(path: "\(photo.rawValue).jpg")) != nil }
      }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(answered == photos.count)
    #expect(photos.count > 2)
    #expect(imaging.peak == 1)
  }

  @Test(.timeLimit(.minutes(5)))
  func aFIFONamedLikeAPhotoNeverBlocks() async throws {
    let folder = try TemporaryFolder()
    let pipe = folder.file("pipe.jpg")
    #expect(mkfifo(pipe, 0o600) == 0)
    #expect(throws: PixScanError.notFound("pipe.jpg")) {
      try FileReading.readNow(
        try FolderSandbox(folder: folder.path), path: "pipe.jpg", maximumByteCount: 1 << 20)
    }
  }

  @Test func aSymbolicLinkSwappedInAfterListingIsNotRead() async throws {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let secret = try outside.write(try SamplePhoto.dog.data, to: "secret.jpg")
    let session = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    try await session.decide(path: "cat.jpg", action: .queue)
    try FileManager.default.removeItem(atPath: folder.file("cat.jpg"))
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("cat.jpg"), withDestinationPath: secret)
    // A link, at the last component as at any other, is not followed.
    #expect(throws: PixScanError.outsideFolder("cat.jpg")) {
      try FileReading.readNow(
        try FolderSandbox(folder: folder.path), path: "cat.jpg", maximumByteCount: 1 << 20)
    }
    await #expect(throws: PixScanError.self) {
      _ = try await session.thumbnail(path: "cat.jpg", size: .small)
    }
    let report = try await session.emptyQueue()
    #expect(report.moved.isEmpty)
    #expect(FileManager.default.fileExists(atPath: secret))
  }

  @Test func aDamagedHistoryRowIsAnErrorNotACrash() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let session = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    try await session.decide(path: "cat.jpg", action: .queue)
    // The history table rebuilt without its NOT NULL rules, holding a NULL path.
    try await Self.database(folder).write { db in
      try db.execute(
        sql: """
          DROP TABLE action;
          CREATE TABLE action (id INTEGER PRIMARY KEY, batch INTEGER, path TEXT,
            byteCount INTEGER, modifiedMilliseconds INTEGER, isScreenshot BOOLEAN,
            previous TEXT, next TEXT);
          INSERT INTO action (batch, path, byteCount, modifiedMilliseconds, isScreenshot,
            previous, next) VALUES (1, NULL, 1, 1, 0, NULL, 'queue');
          """)
    }
    await #expect(throws: PixScanError.self) { _ = try await session.undoLast() }
    try await Self.database(folder).write { db in
      try db.execute(
        sql: """
          DELETE FROM action;
          INSERT INTO action (batch, path, byteCount, modifiedMilliseconds, isScreenshot,
            previous, next) VALUES (1, 'cat.jpg', 1, 1, 0, NULL, 'burn');
          """)
    }
    do {
      _ = try await session.undoLast()
      Issue.record("an unknown decision was undone")
    } catch {
      #expect(error.code == "store_failed")
      #expect(error.errorDescription?.contains("unknown decision") == true)
    }
    // A decision column holding a number: reopening reports it.
    try await Self.database(folder).write { db in
      try db.execute(sql: "UPDATE decision SET decision = 42")
    }
    await #expect(throws: PixScanError.self) {
      _ = try await TriageSessionTests.open(folder, trash: data.file("Trash"))
    }
  }
}
