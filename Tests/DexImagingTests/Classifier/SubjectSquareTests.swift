import DexModel
import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// The subject's square (``ImagePreprocessor/subjectSquare(in:)``), the network input made from
/// it, and the second view ``ClassifierViews/centreCropAndSubject`` adds.
@Suite(.offCooperativePool) struct SubjectSquareTests {
  /// `width × height` pixels of `background`, with the rectangle `box` (x, y, w, h) in `subject`.
  static func picture(
    width: Int, height: Int, background: [UInt8], subject: [UInt8] = [200, 30, 30],
    box: (x: Int, y: Int, w: Int, h: Int)
  ) throws -> RGBImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let inside = x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h
        for c in 0..<3 { pixels[(y * width + x) * 3 + c] = inside ? subject[c] : background[c] }
      }
    }
    return try #require(RGBImage(width: width, height: height, pixels: pixels))
  }

  /// A 60 × 40 rectangle on white: its rows 50–89 and columns 100–159, widened by 10 % of 59 on
  /// each side (71 px) and centred on the rectangle.
  @Test func aRectangleOnWhite() throws {
    let image = try Self.picture(
      width: 300, height: 200, background: [255, 255, 255], box: (100, 50, 60, 40))
    let square = try #require(ImagePreprocessor().subjectSquare(in: image))
    #expect(
      square
        == SubjectSquare(
          x: 94, y: 34, side: 71, background: DexColor(red: 255, green: 255, blue: 255)))
  }

  /// The fish fixture is on black: the square `subject_square()` in
  /// `Scripts/classifier-evalset.py` finds for the same pixels (rows 37–180, columns 75–197 by
  /// their 0.5th and 99.5th percentiles; side round(143 × 1.2) = 172; top (37 + 180 − 172) / 2 =
  /// 22.5, rounded to even as Python rounds). The other fixtures' borders are not plain.
  @Test func theFixturesAsTheScriptSeesThem() throws {
    let preprocessor = ImagePreprocessor()
    let fish = try #require(preprocessor.subjectSquare(in: ClassifierFixtures.image("fish")))
    #expect(
      fish
        == SubjectSquare(x: 50, y: 22, side: 172, background: DexColor(red: 0, green: 0, blue: 0)))
    for name in ["cat", "dog", "squirrel", "insect", "flower", "moss", "fruit"] {
      #expect(preprocessor.subjectSquare(in: try ClassifierFixtures.image(name)) == nil, "\(name)")
    }
  }

  /// No square where the border is busy (a gradient), where the subject is under 1 % of the
  /// photo, or in a photo of one colour.
  @Test func noSquareWithoutAPlainBackgroundAndASubject() throws {
    let preprocessor = ImagePreprocessor()
    var gradient = [UInt8](repeating: 0, count: 200 * 100 * 3)
    for i in 0..<(200 * 100) { gradient[i * 3] = UInt8(i % 200) }
    #expect(
      preprocessor.subjectSquare(
        in: try #require(RGBImage(width: 200, height: 100, pixels: gradient))) == nil)
    let speck = try Self.picture(
      width: 200, height: 200, background: [240, 240, 240], box: (100, 100, 19, 20))
    #expect(preprocessor.subjectSquare(in: speck) == nil, "380 of 40,000 pixels")
    let blank = try Self.picture(
      width: 64, height: 64, background: [9, 9, 9], box: (0, 0, 0, 0))
    #expect(preprocessor.subjectSquare(in: blank) == nil)
    let one = try #require(RGBImage(width: 1, height: 1, pixels: [1, 2, 3]))
    #expect(preprocessor.subjectSquare(in: one) == nil)
  }

  /// A subject against the left edge: the square reaches past it, and the network sees the
  /// background colour there, not black.
  @Test func aSquarePastTheEdgeIsFilledWithTheBackground() throws {
    let image = try Self.picture(
      width: 300, height: 300, background: [40, 80, 240], subject: [250, 250, 0],
      box: (0, 100, 100, 100))
    let preprocessor = ImagePreprocessor()
    let square = try #require(preprocessor.subjectSquare(in: image))
    #expect(square.x < 0)
    #expect(square.background == .init(red: 40, green: 80, blue: 240))
    let input = try #require(preprocessor.networkInput(from: image, square: square))
    #expect(input.count == 224 * 224 * 3)
    let expected: [Float] = [40, 80, 240].map { ($0 - 127) / 128 }
    // The top-left corner lies outside the photo, the centre on the subject.
    for c in 0..<3 { #expect(abs(input[c] - expected[c]) < 1e-4, "channel \(c)") }
    let centre = (112 * 224 + 112) * 3
    #expect(abs(input[centre] - (250 - 127) / 128) < 1e-3)
    #expect(abs(input[centre + 2] - (0 - 127) / 128) < 1e-3)
  }

  /// A square inside the photo gives the same input as the same region cropped out first.
  @Test func aSquareInsideThePhotoIsAPlainCrop() throws {
    let image = try ClassifierFixtures.image("cat")
    let square = SubjectSquare(
      x: 16, y: 16, side: 224, background: DexColor(red: 1, green: 2, blue: 3))
    let preprocessor = ImagePreprocessor()
    #expect(
      preprocessor.networkInput(from: image, square: square)
        == preprocessor.networkInput(from: image))
  }

  /// Squares the finder never returns are refused before anything is allocated: off the photo,
  /// or far larger than it (a side of `Int.max` included).
  @Test func hostileSquaresAreRefused() throws {
    let image = try Self.picture(
      width: 50, height: 40, background: [0, 0, 0], box: (10, 10, 20, 20))
    let preprocessor = ImagePreprocessor()
    let black = DexColor(red: 0, green: 0, blue: 0)
    for square in [
      SubjectSquare(x: 50, y: 0, side: 10, background: black),
      SubjectSquare(x: -10, y: 0, side: 10, background: black),
      SubjectSquare(x: 0, y: -40, side: 40, background: black),
      SubjectSquare(x: 0, y: 0, side: 201, background: black),
      SubjectSquare(x: 0, y: 0, side: .max, background: black),
      SubjectSquare(x: .min, y: .min, side: .max, background: black),
    ] {
      #expect(preprocessor.networkInput(from: image, square: square) == nil, "\(square)")
    }
    #expect(
      preprocessor.networkInput(
        from: image, square: SubjectSquare(x: -150, y: -150, side: 200, background: black))
        != nil)
  }

  /// ``ClassifierViews/centreCropAndSubject`` averages a second pass on the fish (plain border)
  /// with the centre crop's (on two threads the passes run side by side, on one one after the
  /// other, and agree), and is the centre crop alone on the cat; ``ImageClassifier`` runs the
  /// views its calibration names.
  @Test func theSecondViewRunsOnlyOnAPlainBackground() async throws {
    let engine = try #require(ClassifierFixtures.Engine.available.first)
    let model = try ClassifierFixtures.model(engine)
    // The centre crop's logits: the portable path's come from the per-run cache (a debug-built
    // portable pass costs seconds of CPU).
    let centreLogits = { (name: String) throws -> [Float] in
      engine == .portable
        ? try ClassifierFixtures.portableLogits(name)
        : try model.logits(for: ClassifierFixtures.image(name))
    }
    let fish = try ClassifierFixtures.image("fish")
    let centre = try centreLogits("fish")
    let square = try #require(model.preprocessor.subjectSquare(in: fish))
    let subject = try model.logits(
      forNetworkInput: try #require(model.preprocessor.networkInput(from: fish, square: square)))
    // Two threads: the passes side by side, one thread each.
    let both = try model.logits(for: fish, views: .centreCropAndSubject, threads: 2)
    #expect(both.count == centre.count)
    #expect(zip(both, zip(centre, subject)).allSatisfy { abs($0 - ($1.0 + $1.1) / 2) < 1e-4 })
    #expect(both != centre)
    // The classifier (one thread: the passes one after the other) runs the views of its
    // calibration: the fitted one's (both) or, with the centre crop's fit or without a
    // calibration, the centre crop alone.
    let runs: [(ClassifierCalibration?, [Float])] = [
      (.fitted, both), (.fittedCentreCrop, centre), (nil, centre),
    ]
    for (calibration, logits) in runs {
      let classifier = ImageClassifier(
        model: model, decoder: PPMDecoder(),
        configuration: .init(calibration: calibration))
      #expect(
        try await classifier.rankedLabels(for: fish, limit: 3)
          == model.rankedLabels(logits: logits, limit: 3))
    }
    let cat = try ClassifierFixtures.image("cat")
    #expect(try model.logits(for: cat, views: .centreCropAndSubject) == centreLogits("cat"))

    // A cancellation the calling thread sees ends a side-by-side call with `cancelled`.
    #expect(
      throws: ClassifierError.cancelled,
      performing: {
        try model.logits(for: fish, views: .centreCropAndSubject, threads: 2) { true }
      })
    // So does one that comes while the passes run (here after the first two asks; a oneDNN
    // pass asks only as it starts), as it would between passes run one after the other.
    var asks = 0
    #expect(
      throws: ClassifierError.cancelled,
      performing: {
        try model.logits(for: fish, views: .centreCropAndSubject, threads: 2) {
          asks += 1
          return asks > 2
        }
      })
    #expect(asks > 2)
  }

  /// Two-view guesses called from every worker of a full dispatch pool at once each finish with
  /// the same logits: the second pass does not wait for a worker of the caller's pool. On
  /// oneDNN only: the scheduling is the same on either backend, and ten debug-built portable
  /// passes would cost over a minute of CPU.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn), .timeLimit(.minutes(2)))
  func sideBySideViewsFinishFromAFullPool() throws {
    let model = try ClassifierFixtures.model(.oneDNN)
    let fish = try ClassifierFixtures.image("fish")
    let expected = try model.logits(for: fish, views: .centreCropAndSubject, threads: 2)
    let calls = 2 * ProcessInfo.processInfo.activeProcessorCount
    let results = Locked([Int: [Float]]())
    DispatchQueue.concurrentPerform(iterations: calls) { call in
      let logits = try? model.logits(for: fish, views: .centreCropAndSubject, threads: 2)
      results.withLock { $0[call] = logits }
    }
    let finished = results.withLock { $0 }
    #expect(finished.count == calls)
    for (call, logits) in finished {
      #expect(logits == expected, "call \(call)")
    }
  }
}
