import DexKit
import DexKitTesting
import Foundation
import Testing

let tabby = ScanResult(
  commonName: "Tabby Cat", category: "animal", scientificName: "Felis catus",
  summary: "A striped domestic cat.", facts: ["Purrs at 25–150 Hz"], rarity: "Common",
  confidence: 0.97)

/// A scanner built from DexKitTesting's doubles alone, as a host on any platform builds one:
/// no decoder, network model, OCR engine, backend or disk.
@Suite("DexKitTesting's scripted doubles")
struct ScriptedDoublesTests {
  static let line = RecognizedTextLine(
    text: "Felis catus", confidence: 0.9, boundingBox: PixelRect(x: 0, y: 0, width: 8, height: 2))

  @Test func aScanFromDoublesAloneIsSavedWithItsPhotoAndText() async throws {
    let photo = try SamplePhoto.cat.data
    let downscaler = ScriptedDownscaler()
    let recognizer = ScriptedTextRecognizer(.text(RecognizedText(lines: [Self.line])))
    let vision = ScriptedVisionService(.result(tabby))
    let scanner = DexScanner(
      classifier: FixedClassifier(category: .animal, label: "tabby"), visionService: vision,
      textRecognizer: recognizer, downscaler: downscaler)
    let final = await scanner.run(photo)
    #expect(final.phase == .result)
    #expect(final.result == tabby)
    #expect(final.recognizedText?.string == "Felis catus")
    // The photo's own bytes are the scan's JPEG and thumbnail, and what the cloud pass was sent.
    #expect(final.imageData == photo)
    #expect(final.thumbnailData == photo)
    #expect(await vision.requests.map(\.imageData) == [photo])
    #expect(downscaler.requests.map(\.imageData) == [photo])
    #expect(downscaler.requests.first?.options == DexScanner.Configuration().encoding)
    #expect(await recognizer.images == [ScriptedDownscaler.grayPixels])

    let store = InMemoryDexStore()
    let entry = try await store.insert(
      try #require(final.makeEntry()), image: try #require(final.imageData),
      thumbnail: final.thumbnailData)
    #expect(entry.recognizedText == "Felis catus")
    #expect(try await store.imageData(for: entry.id) == photo)
  }

  /// A host's own service that answers a placeholder "Unknown" is a failed cloud pass, as the
  /// bundled service's is: the local guess becomes the offline entry, and without one the scan
  /// fails; a confidence of 85 reads as 0.85.
  @Test func aServiceThatNamesNothingTakesTheFallbackPath() async throws {
    let photo = try SamplePhoto.cat.data
    let placeholder = ScanResult(commonName: "Unknown", category: "unknown", confidence: 0.9)
    let withGuess = await DexScanner(
      classifier: FixedClassifier(category: .animal, label: "tabby"),
      visionService: ScriptedVisionService(.result(placeholder)),
      downscaler: ScriptedDownscaler()
    ).run(photo)
    #expect(withGuess.phase == .result)
    #expect(withGuess.isOffline)
    #expect(withGuess.result?.commonName != "Unknown")
    guard case .identificationFailed(let reason)? = withGuess.cloudError else {
      Issue.record("expected identificationFailed, got \(String(describing: withGuess.cloudError))")
      return
    }
    #expect(reason as? ScanResult.ParseError == .noIdentification)

    let blind = await DexScanner(
      classifier: FixedClassifier.blind, visionService: ScriptedVisionService(.result(placeholder)),
      downscaler: ScriptedDownscaler()
    ).run(photo)
    #expect(blind.phase == .failed)
    #expect(blind.result == nil)

    var percent = tabby
    percent.confidence = 85
    let read = await DexScanner(
      classifier: FixedClassifier.blind, visionService: ScriptedVisionService(.result(percent)),
      downscaler: ScriptedDownscaler()
    ).run(photo)
    #expect(read.result?.confidence == 0.85)
    #expect(!read.isOffline)
  }

  @Test func aScriptedDecodeFailureIsTheScansUnreadableImage() async throws {
    let refusal = ImagingError.corruptData(format: .heif, message: "scripted")
    let vision = ScriptedVisionService(.result(tabby))
    let final = await DexScanner(
      classifier: FixedClassifier.blind, visionService: vision,
      downscaler: ScriptedDownscaler(.failure(refusal))
    ).run(try SamplePhoto.cat.data)
    #expect(final.phase == .failed)
    #expect(final.error == .unreadableImage(refusal))
    guard case .unreadableImage(let error)? = final.error else {
      Issue.record("expected unreadableImage, got \(String(describing: final.error))")
      return
    }
    #expect(error == refusal)
    #expect(await vision.requests.isEmpty)
  }

  @Test func scriptsPlayInOrderAndRepeatTheirLastReply() async throws {
    let wide = try #require(RGBImage(width: 3, height: 1, pixels: [UInt8](repeating: 9, count: 9)))
    let downscaler = ScriptedDownscaler([.failure(.emptyInput), .pixels(wide)])
    #expect(throws: ImagingError.emptyInput) {
      try downscaler.decodePixels(from: Data([1]), target: .original)
    }
    let image = try await downscaler.downscale(
      Data([0xFF, 0xD8, 0xFF]), options: DownscaleOptions())
    #expect(image.pixels == wide)
    #expect(image.pixelWidth == 3 && image.pixelHeight == 1)
    #expect(image.sourceFormat == .jpeg)
    #expect(try await downscaler.decodePixels(from: Data([2]), target: .original) == wide)
    #expect(downscaler.requests.map(\.options) == [nil, DownscaleOptions(), nil])

    let recognizer = ScriptedTextRecognizer([
      .failure(.languageUnavailable("deu")), .text(RecognizedText(lines: [])),
    ])
    await #expect(throws: TextRecognitionError.languageUnavailable("deu")) {
      try await recognizer.recognizeText(in: wide)
    }
    for _ in 0..<2 { #expect(try await recognizer.recognizeText(in: wide).isEmpty) }
    #expect(await recognizer.images.count == 3)
  }

  @Test func aHangingRecognizerEndsWhenItsTaskIsCancelled() async throws {
    let recognizer = ScriptedTextRecognizer(.hang)
    let call = Task { try await recognizer.recognizeText(in: ScriptedDownscaler.grayPixels) }
    // Polled for at most 2 minutes (a loaded CI run can stall a task for over 10 s): the call
    // is under way before it is cancelled.
    for _ in 0..<12_000 where await recognizer.images.isEmpty {
      try await Task.sleep(for: .milliseconds(10))
    }
    call.cancel()
    await #expect(throws: CancellationError.self) { try await call.value }
    #expect(await recognizer.cancellations == 1)
  }
}
