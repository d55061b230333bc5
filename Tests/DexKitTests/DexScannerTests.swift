import DexKit
import DexKitTesting
import DexTestTraits
import Foundation
import Testing

// The real engines (DexImaging's system codecs) exist on Linux with the trait only; the flow
// over doubles alone is in ScriptedDoublesTests, which runs everywhere.
#if os(Linux) && SystemImageCodecs
  /// The real classifier, recording which entry the scanner called and with what.
  actor RecordingClassifier: ImageClassifying {
    private let real = ImageClassifier()
    private(set) var byteCalls = 0
    private(set) var pixelCalls: [DownscaledImage] = []

    nonisolated func classify(imageData: Data) async -> LocalGuess? {
      await countBytes()
      return await real.classify(imageData: imageData)
    }

    nonisolated func classify(_ image: DownscaledImage) async -> LocalGuess? {
      await record(image)
      return await real.classify(image)
    }

    private func countBytes() { byteCalls += 1 }
    private func record(_ image: DownscaledImage) { pixelCalls.append(image) }
  }

  // The scanner's flow is tested with DexKitTesting's doubles for the cloud pass (and, where the
  // guess does not matter, the on-device pass); the real classifier and downscaler run on real
  // photos. (End to end over HTTP lives in DexProxyTests.)

  func photo(_ name: SamplePhoto) throws -> Data { try name.data }

  @Suite("DexScanner", .offCooperativePool)
  struct DexScannerTests {
    @Test func happyPathPublishesEveryPhaseAndSendsTheHint() async throws {
      let vision = ScriptedVisionService(.result(tabby))
      let scanner = DexScanner(visionService: vision, configuration: .init(maximumDimension: 200))
      var states: [DexScanState] = []
      for await state in scanner.scan(try photo(.cat)) { states.append(state) }

      try #require(states.map(\.phase) == [.capturing, .analyzing, .analyzing, .result])
      #expect(states[1].localGuess == nil, "the first analyzing state comes before the guess")
      let guess = try #require(states[2].localGuess)
      #expect(guess.category == .animal)
      let final = try #require(states.last)
      #expect(final.result == tabby)
      #expect(!final.isOffline)
      #expect(await vision.requests.map(\.categoryHint) == [.animal])
      // One encode: the JPEG the cloud saw is the one the state carries.
      let jpeg = try #require(final.imageData)
      #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
      #expect(await vision.requests.map(\.imageData) == [jpeg])
      let entry = try #require(
        final.makeEntry(id: "E", discoveredAt: Date(timeIntervalSince1970: 0)))
      #expect(entry.commonName == "Tabby Cat")
      #expect(entry.localGuessLabel == guess.label)
      #expect(entry.category == .animal)
    }

    @Test func theClassifierReadsThePass0PixelsAndTheThumbnailComesFromThem() async throws {
      let classifier = RecordingClassifier()
      let final = await DexScanner(
        classifier: classifier,
        configuration: .init(maximumDimension: 200, maximumThumbnailDimension: 64)
      ).run(try photo(.cat))  // 256 × 256
      #expect(final.phase == .result)
      #expect(await classifier.byteCalls == 0, "the JPEG must not be decoded again")
      let seen = try #require(await classifier.pixelCalls.first)
      let pixels = try #require(seen.pixels)
      #expect(pixels.width == 200 && pixels.height == 200)
      #expect(seen.pixelWidth == 200 && seen.pixelHeight == 200)
      #expect(seen.jpegData == final.imageData)
      #expect(final.localGuess?.category == .animal)
      // The thumbnail: a JPEG whose longest side is 64, from the same decode.
      let thumbnail = try #require(final.thumbnailData)
      let decoded = try await ImageDownscaler().decodePixels(from: thumbnail, target: .original)
      #expect(max(decoded.width, decoded.height) == 64)
      #expect(abs(decoded.width * pixels.height / pixels.width - decoded.height) <= 1)
      let none = await DexScanner(
        classifier: FixedClassifier.blind,
        configuration: .init(maximumThumbnailDimension: nil)
      ).run(try photo(.cat))
      #expect(none.thumbnailData == nil)
      #expect(none.imageData != nil)
    }

    @Test func cloudFailureFallsBackToTheOfflineEntry() async throws {
      let scanner = DexScanner(visionService: ScriptedVisionService(.failure()))
      let final = await scanner.run(try photo(.insect))
      #expect(final.phase == .result)
      #expect(final.isOffline)
      guard case .identificationFailed(let underlying)? = final.cloudError else {
        Issue.record("expected the service's error, got \(String(describing: final.cloudError))")
        return
      }
      #expect(underlying is ScriptedVisionService.Failure, "the service's own error is kept")
      let guess = try #require(final.localGuess)
      #expect(guess.category == .insect)
      #expect(final.result == .offlineFallback(for: guess))
    }

    @Test func noBackendScansOffline() async throws {
      let final = await DexScanner().run(try photo(.fruit))
      #expect(final.phase == .result)
      #expect(final.isOffline)
      #expect(final.cloudError == nil)
      #expect(final.result?.dexCategory == .food)
    }

    /// ImageNet has almost no flowers: the flower is a plant (calibrated 0.92 on the reference
    /// pixels, 0.89 from this JPEG by `Scripts/classifier-evalset.py fixtures`) whose best plant
    /// class ("daisy", 0.22 to 0.35) is too unlikely to be its name, nor does any plant node of the
    /// tree reach the naming threshold: it is named by its category.
    @Test func anOfflineFlowerIsNamedOnlyAsAPlantAndKeepsItsLabel() async throws {
      let final = await DexScanner().run(try photo(.flower))
      #expect(final.isOffline)
      let guess = try #require(final.localGuess)
      #expect(guess.category == .plant)
      #expect(!guess.isLabelLikely, "\(guess)")
      let name = try #require(final.result?.commonName)
      #expect(name == guess.offlineName)
      #expect(name == "Unidentified plant", "\(guess)")
      #expect(guess.name == "", "no name below the category: \(guess)")
      let entry = try #require(final.makeEntry())
      #expect(entry.localGuessLabel == guess.label)
      #expect(!entry.localGuessLabel.isEmpty)
    }

    /// ImageNet splits the cat over tabby, tiger cat and Egyptian Mau (best 37 %); pooled up the
    /// WordNet tree they are a "Domestic Cat" (about 0.91), the name the offline entry gets.
    @Test func anOfflineCatIsNamedAsACatAndKeepsItsFineLabel() async throws {
      let final = await DexScanner().run(try photo(.cat))
      #expect(final.isOffline)
      let guess = try #require(final.localGuess)
      #expect(guess.category == .animal)
      #expect(!guess.isLabelLikely, "no single class is sure: \(guess)")
      #expect(guess.name == "Domestic Cat")
      #expect((guess.nameConfidence ?? 0) >= ClassifierCalibration.fitted.namingThreshold)
      #expect(final.result?.commonName == "Domestic Cat")
      let entry = try #require(final.makeEntry())
      #expect(entry.commonName == "Domestic Cat")
      #expect(entry.localGuessLabel == guess.label)
      #expect(["Egyptian Mau", "tabby cat", "tiger cat"].contains(entry.localGuessLabel))
    }

    @Test func noGuessAndNoCloudIsAFailureNotAnUnknownSuccess() async throws {
      let failing = await DexScanner(
        classifier: FixedClassifier.blind, visionService: ScriptedVisionService(.failure())
      )
      .run(try photo(.dog))
      #expect(failing.phase == .failed)
      #expect(failing.result == nil)
      guard case .identificationFailed(let underlying)? = failing.error else {
        Issue.record("expected identificationFailed, got \(String(describing: failing.error))")
        return
      }
      #expect(underlying is ScriptedVisionService.Failure)
      let offline = await DexScanner(classifier: FixedClassifier.blind).run(try photo(.dog))
      #expect(offline.phase == .failed)
      #expect(offline.makeEntry() == nil)
    }

    @Test func unreadablePhotosFailWithTheDecodersOwnError() async throws {
      let scanner = DexScanner(visionService: ScriptedVisionService(.result(tabby)))
      let empty = await scanner.run(Data())
      #expect(empty.phase == .failed)
      #expect(empty.error == .unreadableImage(.emptyInput))
      #expect(empty.imageData == nil)

      let text = await scanner.run(Data("not an image".utf8))
      guard case .unreadableImage(.unsupportedFormat)? = text.error else {
        Issue.record("expected unsupportedFormat, got \(String(describing: text.error))")
        return
      }
      let cut = await scanner.run(try photo(.cat).prefix(2000))
      guard case .unreadableImage(let error)? = cut.error else {
        Issue.record("expected unreadableImage, got \(String(describing: cut.error))")
        return
      }
      switch error {
      case .truncatedData(.jpeg), .corruptData(.jpeg, _): break
      default: Issue.record("a cut JPEG gave \(error)")
      }
    }

    @Test func aHangingCloudIsBoundedByTheTimeout() async throws {
      let config = DexScanner.Configuration(cloudTimeout: .milliseconds(300))
      let withGuess = await DexScanner(
        visionService: ScriptedVisionService(.hang), configuration: config
      )
      .run(try photo(.fish))
      #expect(withGuess.phase == .result)
      #expect(withGuess.isOffline)
      let blind = await DexScanner(
        classifier: FixedClassifier.blind, visionService: ScriptedVisionService(.hang),
        configuration: config
      ).run(try photo(.fish))
      #expect(blind.error == .timedOut)
    }

    /// A service that ignores cancellation (a blocking call inside it) is left behind at the
    /// deadline: the scan answers then, not when the service returns.
    @Test func aCloudThatIgnoresCancellationIsLeftAtTheDeadline() async throws {
      let config = DexScanner.Configuration(cloudTimeout: .milliseconds(300))
      let first = UncancellableGate(limit: .seconds(120))
      let withGuess = await DexScanner(
        visionService: StubbornVisionService(gate: first), configuration: config
      ).run(try photo(.fish))
      // Answered while the service was still waiting (its gate opens by itself only after 120 s;
      // the scan itself can take tens of seconds while the whole suite shares two cores).
      #expect(!first.isOpen)
      first.open()
      #expect(withGuess.phase == .result)
      #expect(withGuess.isOffline)
      let second = UncancellableGate(limit: .seconds(120))
      let blind = await DexScanner(
        classifier: FixedClassifier.blind, visionService: StubbornVisionService(gate: second),
        configuration: config
      ).run(try photo(.fish))
      #expect(!second.isOpen)
      second.open()
      #expect(blind.error == .timedOut)
    }

    @Test func aScanCancelledBeforeItsEncodeIsCancelledNotUnreadable() async throws {
      let scanner = DexScanner(visionService: ScriptedVisionService(.hang))
      let image = try photo(.cat)
      let task = Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return await scanner.run(image)
      }
      let final = await task.value
      #expect(final.phase == .failed)
      #expect(final.error == .cancelled)
      #expect(final.imageData == nil)
    }

    @Test func cancellingTheScanStopsIt() async throws {
      let scanner = DexScanner(visionService: ScriptedVisionService(.hang))
      let image = try photo(.cat)
      let task = Task { await scanner.run(image) }
      try await Task.sleep(for: .milliseconds(400))
      task.cancel()
      let final = await task.value
      #expect(final.phase == .failed)
      #expect(final.error == .cancelled)
    }
  }

  /// A vision service whose call waits until `gate` opens, whatever the task's cancellation.
  struct StubbornVisionService: DexVisionServicing {
    let gate: UncancellableGate

    func identify(imageData: Data, categoryHint: DexCategory?) async throws -> ScanResult {
      await gate.wait()
      throw CancellationError()
    }
  }

  /// A wait that ignores task cancellation and holds no thread: it ends when the gate opens, by
  /// ``open()`` or by itself after `limit` (so that a regression fails on ``isOpen`` rather than
  /// hanging).
  final class UncancellableGate: @unchecked Sendable {
    private let lock = NSLock()
    private var opened = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Duration) {
      let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) * 1e-18
      DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
        self?.open()
      }
    }

    var isOpen: Bool { lock.withLock { opened } }

    func open() {
      let resumed = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
        opened = true
        defer { waiters = [] }
        return waiters
      }
      for waiter in resumed { waiter.resume() }
    }

    func wait() async {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = lock.withLock { () -> Bool in
          if opened { return true }
          waiters.append(continuation)
          return false
        }
        if now { continuation.resume() }
      }
    }
  }
#endif
