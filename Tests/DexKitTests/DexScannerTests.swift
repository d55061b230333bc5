import DexKit
import DexTestTraits
import Foundation
import Testing

/// A cloud pass behind the protocol, so the scanner's flow is tested without a network; the
/// real classifier and downscaler run on real photos. (End to end over HTTP lives in
/// DexProxyTests.)
actor ScriptedVision: DexVisionServicing {
  enum Behaviour: Sendable {
    case answer(ScanResult)
    case fail
    case hang
  }

  let behaviour: Behaviour
  private(set) var hints: [String?] = []
  private(set) var imageSizes: [Int] = []

  init(_ behaviour: Behaviour) { self.behaviour = behaviour }

  struct Failure: Error {}

  nonisolated func identify(imageData: Data, categoryHint: String?) async throws -> ScanResult {
    try await record(imageData: imageData, hint: categoryHint)
  }

  private func record(imageData: Data, hint: String?) async throws -> ScanResult {
    hints.append(hint)
    imageSizes.append(imageData.count)
    switch behaviour {
    case .answer(let result): return result
    case .fail: throw Failure()
    case .hang:
      try await Task.sleep(for: .seconds(60))
      throw Failure()
    }
  }
}

/// A classifier that never finds anything.
struct BlindClassifier: ImageClassifying {
  func classify(imageData: Data) async -> LocalGuess? { nil }
}

func photo(_ name: String) throws -> Data {
  let url = try #require(
    Bundle.module.url(forResource: name, withExtension: "jpg", subdirectory: "Photos"))
  return try Data(contentsOf: url)
}

let tabby = ScanResult(
  commonName: "Tabby Cat", category: "animal", scientificName: "Felis catus",
  summary: "A striped domestic cat.", facts: ["Purrs at 25–150 Hz"], rarity: "Common",
  confidence: 0.97)

@Suite("DexScanner", .offCooperativePool)
struct DexScannerTests {
  @Test func happyPathPublishesEveryPhaseAndSendsTheHint() async throws {
    let vision = ScriptedVision(.answer(tabby))
    let scanner = DexScanner(visionService: vision, configuration: .init(maxDimension: 200))
    var states: [DexScanState] = []
    for await state in scanner.scan(try photo("cat")) { states.append(state) }

    #expect(states.map(\.phase) == [.capturing, .analyzing, .analyzing, .result])
    #expect(states[1].localGuess == nil, "the first analyzing state comes before the guess")
    let guess = try #require(states[2].localGuess)
    #expect(guess.category == .animal)
    let final = try #require(states.last)
    #expect(final.result == tabby)
    #expect(!final.isOffline)
    #expect(await vision.hints == ["Animal"])
    // One encode: the JPEG the cloud saw is the one the state carries.
    let jpeg = try #require(final.imageData)
    #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
    #expect(await vision.imageSizes == [jpeg.count])
    let entry = try #require(final.makeEntry(id: "E", discoveredAt: Date(timeIntervalSince1970: 0)))
    #expect(entry.commonName == "Tabby Cat")
    #expect(entry.localGuessLabel == guess.label)
    #expect(entry.category == .animal)
  }

  @Test func cloudFailureFallsBackToTheOfflineEntry() async throws {
    let scanner = DexScanner(visionService: ScriptedVision(.fail))
    let final = await scanner.run(try photo("insect"))
    #expect(final.phase == .result)
    #expect(final.isOffline)
    #expect(final.cloudError != nil)
    let guess = try #require(final.localGuess)
    #expect(guess.category == .insect)
    #expect(final.result == .offlineFallback(for: guess))
  }

  @Test func noBackendScansOffline() async throws {
    let final = await DexScanner().run(try photo("fruit"))
    #expect(final.phase == .result)
    #expect(final.isOffline)
    #expect(final.cloudError == nil)
    #expect(final.result?.dexCategory == .food)
  }

  @Test func noGuessAndNoCloudIsAFailureNotAnUnknownSuccess() async throws {
    let failing = await DexScanner(
      classifier: BlindClassifier(), visionService: ScriptedVision(.fail)
    )
    .run(try photo("dog"))
    #expect(failing.phase == .failed)
    #expect(failing.result == nil)
    guard case .identificationFailed? = failing.error else {
      Issue.record("expected identificationFailed, got \(String(describing: failing.error))")
      return
    }
    let offline = await DexScanner(classifier: BlindClassifier()).run(try photo("dog"))
    #expect(offline.phase == .failed)
    #expect(offline.makeEntry() == nil)
  }

  @Test(arguments: [Data(), Data("not an image".utf8), Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00])])
  func unreadablePhotosFailWithATypedError(bytes: Data) async {
    let final = await DexScanner(visionService: ScriptedVision(.answer(tabby))).run(bytes)
    #expect(final.phase == .failed)
    guard case .unreadableImage? = final.error else {
      Issue.record("expected unreadableImage, got \(String(describing: final.error))")
      return
    }
    #expect(final.imageData == nil)
  }

  @Test func aHangingCloudIsBoundedByTheTimeout() async throws {
    let config = DexScanner.Configuration(cloudTimeout: .milliseconds(300))
    let withGuess = await DexScanner(visionService: ScriptedVision(.hang), configuration: config)
      .run(try photo("fish"))
    #expect(withGuess.phase == .result)
    #expect(withGuess.isOffline)
    let blind = await DexScanner(
      classifier: BlindClassifier(), visionService: ScriptedVision(.hang), configuration: config
    ).run(try photo("fish"))
    #expect(blind.error == .timedOut)
  }

  @Test func aScanCancelledBeforeItsEncodeIsCancelledNotUnreadable() async throws {
    let scanner = DexScanner(visionService: ScriptedVision(.hang))
    let image = try photo("cat")
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
    let scanner = DexScanner(visionService: ScriptedVision(.hang))
    let image = try photo("cat")
    let task = Task { await scanner.run(image) }
    try await Task.sleep(for: .milliseconds(400))
    task.cancel()
    let final = await task.value
    #expect(final.phase == .failed)
    #expect(final.error == .cancelled)
  }
}
