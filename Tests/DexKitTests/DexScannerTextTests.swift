import DexKit
import DexKitTesting
import DexTestSupport
import DexTestTraits
import Foundation
import Testing

/// A text pass that records the pixels it was given and answers as scripted.
actor ScriptedTextRecognizer: TextRecognizing {
  enum Reply: Sendable {
    case text(RecognizedText)
    case failure(TextRecognitionError)
    /// Waits until cancelled, then throws `CancellationError`.
    case hang
    /// Waits until the gate opens, cancelled or not (a recognizer that does not stop at once).
    case stubborn(BlockingGate)
  }

  let reply: Reply
  private(set) var images: [RGBImage] = []
  private(set) var options: [TextRecognitionOptions] = []
  /// How many `.hang` replies ended by cancellation.
  private(set) var cancellations = 0

  init(_ reply: Reply) { self.reply = reply }

  func recognizeText(
    in image: RGBImage, options: TextRecognitionOptions
  ) async throws
    -> RecognizedText
  {
    images.append(image)
    self.options.append(options)
    switch reply {
    case .text(let text): return text
    case .failure(let error): throw error
    case .hang:
      do {
        try await Task.sleep(for: .seconds(3600))
      } catch {
        cancellations += 1
        throw error
      }
      return RecognizedText(lines: [])
    case .stubborn(let gate):
      await gate.wait()
      return RecognizedText(lines: [])
    }
  }
}

@Suite("DexScanner text pass", .offCooperativePool)
struct DexScannerTextTests {
  static let tag = RecognizedText(lines: [
    RecognizedTextLine(
      text: "English Lavender", confidence: 0.9,
      boundingBox: PixelRect(x: 1, y: 2, width: 3, height: 4)),
    RecognizedTextLine(
      text: "Full sun", confidence: 0.8, boundingBox: PixelRect(x: 1, y: 8, width: 3, height: 4)),
  ])

  @Test func textReadFromThePass0PixelsLandsInTheEntry() async throws {
    let recognizer = ScriptedTextRecognizer(.text(Self.tag))
    var configuration = DexScanner.Configuration(maxDimension: 200)
    configuration.textRecognition = TextRecognitionOptions(minimumConfidence: 0.5)
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"),
      textRecognizer: recognizer, configuration: configuration
    ).run(try SamplePhoto.cat.data)
    #expect(final.phase == .result)
    #expect(final.recognizedText == Self.tag)
    #expect(final.textRecognitionError == nil)
    let images = await recognizer.images
    #expect(images.map(\.width) == [200])  // the downscaled Pass-0 pixels, not a second decode
    #expect(await recognizer.options.map(\.minimumConfidence) == [0.5])
    let entry = try #require(final.makeEntry())
    #expect(entry.recognizedText == "English Lavender\nFull sun")
  }

  @Test func aTextFailureNeverFailsTheScan() async throws {
    let recognizer = ScriptedTextRecognizer(.failure(.languageUnavailable("eng")))
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"), textRecognizer: recognizer
    ).run(try SamplePhoto.cat.data)
    #expect(final.phase == .result)
    #expect(final.recognizedText == nil)
    #expect(final.textRecognitionError == .languageUnavailable("eng"))
    #expect(try #require(final.makeEntry()).recognizedText == nil)
  }

  @Test func noLineMeansNoTextOnTheEntry() async throws {
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"),
      textRecognizer: ScriptedTextRecognizer(.text(RecognizedText(lines: [])))
    ).run(try SamplePhoto.cat.data)
    #expect(final.recognizedText?.isEmpty == true)
    #expect(try #require(final.makeEntry()).recognizedText == nil)
  }

  @Test func aFailedScanCancelsTheTextPass() async throws {
    // Nothing identified (no backend, no guess): the scan fails at once instead of waiting an
    // hour for the hanging text pass.
    let recognizer = ScriptedTextRecognizer(.hang)
    let final = await DexScanner(classifier: FixedClassifier.blind, textRecognizer: recognizer)
      .run(try SamplePhoto.cat.data)
    #expect(final.phase == .failed)
    #expect(final.recognizedText == nil)
    // And the hanging pass is cancelled, not left running (polled for at most 10 s).
    for _ in 0..<1000 where await recognizer.cancellations == 0 {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(await recognizer.cancellations == 1)
  }

  @Test(.timeLimit(.minutes(1)))
  func aStubbornTextPassNeverHoldsTheResultPastTheScanBudget() async throws {
    // The text pass may take 10 minutes, the scan 300 ms: the scan answers at its budget with
    // the text timed out while the recognizer is still running (without the bound it would
    // wait for the gate, which opens only after the result).
    let gate = BlockingGate()
    let recognizer = ScriptedTextRecognizer(.stubborn(gate))
    var configuration = DexScanner.Configuration(maxDimension: 200)
    configuration.cloudTimeout = .milliseconds(300)
    configuration.textRecognition = TextRecognitionOptions(timeout: .seconds(600))
    let final = await DexScanner(
      classifier: FixedClassifier(category: .plant, label: "lavender"),
      textRecognizer: recognizer, configuration: configuration
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
    let final = await DexScanner(classifier: FixedClassifier(category: .plant, label: "lavender"))
      .run(try SamplePhoto.cat.data)
    #expect(final.phase == .result)
    #expect(final.recognizedText == nil && final.textRecognitionError == nil)
  }
}
