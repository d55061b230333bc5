import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// The default classifier driven from bytes, on real photos and on bad input.
@Suite(.offCooperativePool) struct ImageClassifierTests {
  let classifier = ImageClassifier(decoder: PPMDecoder())

  @Test func classifiesPhotoBytesIntoAGuess() async throws {
    let guess = try #require(
      await classifier.classify(imageData: ClassifierFixtures.ppmData("squirrel")))
    // reference.json: the float64 reference ranks "fox squirrel" first (p = 0.891).
    #expect(guess.category == .animal)
    #expect(guess.label == "fox squirrel")
    #expect(guess.confidence > 0.5 && guess.confidence <= 1)
  }

  @Test func theInteractivePresetUsesUpToFourCoresAndAgreesWithOneThread() async throws {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    #expect(ImageClassifier.Configuration.interactive.threads == min(4, max(1, cores)))
    #expect(ImageClassifier.Configuration().threads == 1)
    let interactive = ImageClassifier(decoder: PPMDecoder(), configuration: .interactive)
    let photo = try ClassifierFixtures.ppmData("fruit")
    let parallel = await interactive.rankedLabels(imageData: photo, limit: 5)
    let serial = await classifier.rankedLabels(imageData: photo, limit: 5)
    #expect(parallel.map(\.label) == serial.map(\.label))
    for (a, b) in zip(parallel, serial) { #expect(abs(a.confidence - b.confidence) < 1e-4) }
  }

  @Test func rankedLabelsAreSortedProbabilities() async throws {
    let ranked = await classifier.rankedLabels(
      imageData: try ClassifierFixtures.ppmData("fruit"), limit: 10)
    #expect(ranked.count == 10)
    #expect(ranked.first?.label == "orange")
    #expect(ranked.first?.identifier == "n07747607")
    #expect(zip(ranked, ranked.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
    #expect(ranked.reduce(0) { $0 + $1.confidence } <= 1.0001)
    #expect(await classifier.rankedLabels(imageData: Data([1, 2, 3]), limit: 5).isEmpty)
  }

  @Test(arguments: [
    Data(), Data("not an image at all".utf8), Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]),
    Data("P6\n99999 99999\n255\n".utf8), Data("P6\n4 4\n255\n\u{1}\u{2}".utf8),
  ])
  func nonImageBytesGiveNil(data: Data) async {
    #expect(await classifier.classify(imageData: data) == nil)
  }

  @Test func aHostDecoderFeedsTheClassifier() async throws {
    /// A host's own decoder: it knows one "format", the word `fruit`.
    struct WordDecoder: ImageDecoding {
      let fruit: RGBImage
      func decodePixels(
        from imageData: Data, target: PixelTarget, options: DecodingOptions
      ) throws(ImagingError) -> RGBImage {
        guard imageData == Data("fruit".utf8) else { throw .unsupportedFormat(detected: "word") }
        return fruit
      }
    }
    let decoder = WordDecoder(fruit: try ClassifierFixtures.image("fruit"))
    let classifier = ImageClassifier(decoder: decoder)
    let guess = try #require(await classifier.classify(imageData: Data("fruit".utf8)))
    #expect(guess.category == .food)
    #expect(guess.label == "orange")
    #expect(await classifier.classify(imageData: Data("other".utf8)) == nil)
  }

  @Test func tinyImagesGiveNilAndTypedError() async throws {
    let onePixel = try #require(RGBImage(width: 1, height: 1, pixels: [200, 30, 40]))
    #expect(await classifier.classify(imageData: ClassifierFixtures.ppm(onePixel)) == nil)
    await #expect(throws: ClassifierError.imageTooSmall(width: 1, height: 1, minimumSide: 16)) {
      try await classifier.guess(for: onePixel)
    }
  }

  @Test func smallAndOddShapedImagesStillWork() async throws {
    // A 16×200 strip: the minimum side, far from square, upsampled by the preprocessor.
    var pixels = [UInt8](repeating: 0, count: 16 * 200 * 3)
    for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i / 7) }
    let strip = try #require(RGBImage(width: 16, height: 200, pixels: pixels))
    let ranked = try await classifier.rankedLabels(for: strip, limit: 3)
    #expect(ranked.count == 3)
    #expect(ranked.allSatisfy { $0.confidence.isFinite && $0.confidence >= 0 })
  }

  @Test func fiftyMegapixelImageGivesASensibleAnswer() async throws {
    // 8192 × 6144 = 50.3 MP of grey with a bright band: no crash, bounded memory, and either no
    // guess or a well-formed one.
    let width = 8192
    let height = 6144
    var pixels = [UInt8](repeating: 90, count: width * height * 3)
    pixels.withUnsafeMutableBufferPointer { buffer in
      for y in (height / 3)..<(height / 2) {
        buffer.baseAddress.map { ($0 + y * width * 3).update(repeating: 230, count: width * 3) }
      }
    }
    let image = try #require(RGBImage(width: width, height: height, pixels: pixels))
    let ranked = try await classifier.rankedLabels(for: image, limit: 5)
    #expect(ranked.count == 5)
    #expect(ranked.allSatisfy { $0.confidence.isFinite && (0...1).contains($0.confidence) })
    if let guess = ImageClassifier.guess(
      from: ranked, minimumConfidence: classifier.configuration.minimumConfidence)
    {
      #expect(guess.confidence >= classifier.configuration.minimumConfidence)
      #expect(!guess.label.isEmpty)
    }
  }

  @Test func concurrentCallsAgree() async throws {
    let image = try ClassifierFixtures.image("squirrel")
    let model = try ClassifierModel.bundled()
    async let a = Task { try model.logits(for: image) }.value
    async let b = Task { try model.logits(for: image) }.value
    let (first, second) = try await (a, b)
    #expect(first == second)
    #expect(first.count == 1000)
    // Spreading one inference over several cores changes only the rounding (oneDNN may split
    // a sum between threads), not the ranking.
    for threads in [2, 3] {
      let spread = try model.logits(for: image, threads: threads)
      #expect(zip(spread, first).allSatisfy { abs($0 - $1) < 1e-4 })
      #expect(
        spread.indices.max { spread[$0] < spread[$1] }
          == first.indices.max { first[$0] < first[$1] })
    }
  }

  @Test func cancelledTaskGivesNil() async throws {
    let data = try ClassifierFixtures.ppmData("dog")
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await classifier.classify(imageData: data)
    }
    #expect(await task.value == nil)
  }
}
