import DexKit
import DexKitTesting
import DexTestSupport
import DexTestTraits
import Foundation
import Testing

/// A text pass that waits until `gate` opens, cancelled or not (a recognizer that does not stop
/// at once), recording the options it was given.
actor StubbornTextRecognizer: TextRecognizing {
  let gate: BlockingGate
  private(set) var options: [TextRecognitionOptions] = []

  init(_ gate: BlockingGate) { self.gate = gate }

  func recognizeText(
    in image: RGBImage, options: TextRecognitionOptions
  ) async throws
    -> RecognizedText
  {
    self.options.append(options)
    await gate.wait()
    return RecognizedText(lines: [])
  }
}

// The text pass is tested over DexKitTesting's doubles alone (the Pass-0 engine included), so
// these tests run on every platform.
@Suite("DexScanner text pass", .offCooperativePool)
struct DexScannerTextTests {
  static let tag = RecognizedText(lines: [
    RecognizedTextLine(
      text: "English Lavender", confidence: 0.9,
      boundingBox: PixelRect(x: 1, y: 2, width: 3, height: 4)),
    RecognizedTextLine(
      text: "Full sun", confidence: 0.8, boundingBox: PixelRect(x: 1, y: 8, width: 3, height: 4)),
  ])

  /// The Pass-0 pixels the scripted downscaler hands over: 200 × 150, one grey level per row.
  static let pass0 = RGBImage(
    width: 200, height: 150, pixels: (0..<150).flatMap { [UInt8](repeating: UInt8($0), count: 600) }
  )!

  @Test func textReadFromThePass0PixelsLandsInTheEntry() async throws {
    let recognizer = ScriptedTextRecognizer(.text(Self.tag))
    var configuration = DexScanner.Configuration(maximumDimension: 200)
    configuration.textRecognition = TextRecognitionOptions(minimumConfidence: 0.5)
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"),
      textRecognizer: recognizer, downscaler: ScriptedDownscaler(.pixels(Self.pass0)),
      configuration: configuration
    ).run(try SamplePhoto.cat.data)
    #expect(final.phase == .result)
    #expect(final.recognizedText == Self.tag)
    #expect(final.textRecognitionError == nil)
    let images = await recognizer.images
    #expect(images == [Self.pass0])  // the Pass-0 pixels themselves, not a second decode
    #expect(await recognizer.options.map(\.minimumConfidence) == [0.5])
    let entry = try #require(final.makeEntry())
    #expect(entry.recognizedText == "English Lavender\nFull sun")
  }

  @Test func aTextFailureNeverFailsTheScan() async throws {
    let recognizer = ScriptedTextRecognizer(.failure(.languageUnavailable("eng")))
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"), textRecognizer: recognizer,
      downscaler: ScriptedDownscaler()
    ).run(try SamplePhoto.cat.data)
    #expect(final.phase == .result)
    #expect(final.recognizedText == nil)
    #expect(final.textRecognitionError == .languageUnavailable("eng"))
    #expect(try #require(final.makeEntry()).recognizedText == nil)
  }

  @Test func noLineMeansNoTextOnTheEntry() async throws {
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"),
      textRecognizer: ScriptedTextRecognizer(.text(RecognizedText(lines: []))),
      downscaler: ScriptedDownscaler()
    ).run(try SamplePhoto.cat.data)
    #expect(final.recognizedText?.isEmpty == true)
    #expect(try #require(final.makeEntry()).recognizedText == nil)
  }

  @Test func aFailedScanCancelsTheTextPass() async throws {
    // Nothing identified (no backend, no guess): the scan fails at once instead of waiting an
    // hour for the hanging text pass.
    let recognizer = ScriptedTextRecognizer(.hang)
    let final = await DexScanner(
      classifier: FixedClassifier.blind, textRecognizer: recognizer,
      downscaler: ScriptedDownscaler()
    ).run(try SamplePhoto.cat.data)
    #expect(final.phase == .failed)
    #expect(final.recognizedText == nil)
    // And the hanging pass is cancelled, not left running (polled for at most 2 minutes: the
    // poll ends as soon as it is, and a loaded CI run can stall a task for over 10 s).
    for _ in 0..<12_000 where await recognizer.cancellations == 0 {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(await recognizer.cancellations == 1)
  }

  // The time limit only catches a scan that waits for the gate (which would never open): the
  // whole suite runs at once on CI's 2 cores, so a 1-minute limit failed there on a busy start.
  @Test(.timeLimit(.minutes(5)))
  func aStubbornTextPassNeverHoldsTheResultPastTheScanBudget() async throws {
    // The text pass may take 10 minutes, the scan 300 ms: the scan answers at its budget with
    // the text timed out while the recognizer is still running (without the bound it would
    // wait for the gate, which opens only after the result). The gate opens by itself after 4
    // minutes, not the default 30 s: the suite's tasks share the two threads of the heavy-work
    // executor with the portable classifier's debug passes, which can hold both for longer
    // than 30 s in the portable suite, and the scan's timer then fires only when one is free.
    let gate = BlockingGate(limit: .seconds(240))
    let recognizer = StubbornTextRecognizer(gate)
    var configuration = DexScanner.Configuration(maximumDimension: 200)
    configuration.cloudTimeout = .milliseconds(300)
    configuration.textRecognition = TextRecognitionOptions(timeout: .seconds(600))
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"),
      textRecognizer: recognizer, downscaler: ScriptedDownscaler(), configuration: configuration
    ).run(try SamplePhoto.cat.data)
    #expect(!gate.isOpen)
    gate.open()
    #expect(final.phase == .result)
    #expect(final.recognizedText == nil)
    #expect(final.textRecognitionError == .timedOut(after: .milliseconds(300)))
    // The recognizer was told the clamped budget, not its own 10 minutes.
    #expect(await recognizer.options.map(\.timeout) == [.milliseconds(300)])
  }

  @Test func withoutARecognizerNothingIsRead() async throws {
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"),
      downscaler: ScriptedDownscaler()
    ).run(try SamplePhoto.cat.data)
    #expect(final.phase == .result)
    #expect(final.recognizedText == nil && final.textRecognitionError == nil)
  }
}
