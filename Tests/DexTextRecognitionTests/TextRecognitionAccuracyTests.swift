#if os(Linux) && Tesseract
  import DexImaging
  import DexTestTraits
  import DexTextRecognition
  import Testing

  /// Photos of printed text rendered at test time, read by the real Tesseract: each case prints
  /// its word accuracy and must reach its floor (a little under what it reads today, so that a
  /// regression in the pipeline, not a one-word wobble, fails it).
  @Suite(.offCooperativePool)
  struct TextRecognitionAccuracyTests {
    struct Case: Sendable, CustomTestStringConvertible {
      let kind: String
      let size: Int
      let rotation: Double
      let floor: Double
      var detectsOrientation = false
      var testDescription: String {
        "\(kind) \(size)px \(rotation)°\(detectsOrientation ? " (orientation detected)" : "")"
      }
    }

    /// What the SDK promises: upright text from 12 px and skews of ±5° read without any option;
    /// quarter turns read with `detectsOrientation` when the object carries a few lines of text.
    static let cases: [Case] = [
      Case(kind: "receipt", size: 12, rotation: 0, floor: 0.7),
      Case(kind: "receipt", size: 20, rotation: 0, floor: 0.9),
      Case(kind: "receipt", size: 32, rotation: 5, floor: 0.9),
      Case(kind: "receipt", size: 20, rotation: -5, floor: 0.8),
      Case(kind: "sign", size: 16, rotation: 0, floor: 0.9),
      Case(kind: "sign", size: 40, rotation: 5, floor: 0.8),
      Case(kind: "sign", size: 24, rotation: -5, floor: 0.8),
      Case(kind: "plant-tag", size: 14, rotation: 0, floor: 0.8),
      Case(kind: "plant-tag", size: 24, rotation: 5, floor: 0.8),
      Case(kind: "plant-tag", size: 24, rotation: -5, floor: 0.8),
      Case(kind: "card-name", size: 12, rotation: 0, floor: 0.75),
      Case(kind: "card-name", size: 24, rotation: 5, floor: 0.9),
      Case(kind: "card-name", size: 40, rotation: -5, floor: 0.9),
      Case(kind: "receipt", size: 24, rotation: 90, floor: 0.8, detectsOrientation: true),
      Case(kind: "plant-tag", size: 24, rotation: 90, floor: 0.8, detectsOrientation: true),
      Case(kind: "sign", size: 32, rotation: -90, floor: 0.8, detectsOrientation: true),
    ]

    static let recognizer = TesseractTextRecognizer()

    /// Reads `image` with `options` and a ten-minute deadline: these tests judge what is read,
    /// not how fast, and a loaded 2-core machine running the whole suite queues recognitions
    /// behind each other past the default 30 s (the deadline itself is tested in
    /// TextRecognitionHostileInputTests).
    static func read(
      _ image: RGBImage, _ options: TextRecognitionOptions = TextRecognitionOptions(),
      using reader: TesseractTextRecognizer = TextRecognitionAccuracyTests.recognizer
    ) async throws -> RecognizedText {
      var options = options
      options.timeout = .seconds(600)
      return try await reader.recognizeText(in: image, options: options)
    }

    @Test(arguments: cases)
    func readsRenderedPhoto(_ testCase: Case) async throws {
      let photo = try await TextPhoto.render(
        testCase.kind, size: testCase.size, rotation: testCase.rotation)
      let text = try await Self.read(
        photo.image, TextRecognitionOptions(detectsOrientation: testCase.detectsOrientation))
      let accuracy = wordAccuracy(expected: photo.text, recognized: text.string)
      print(
        "word accuracy \(testCase.testDescription): \(accuracy) (floor \(testCase.floor))"
          + " read: \(text.string.replacingOccurrences(of: "\n", with: " | "))")
      #expect(accuracy >= testCase.floor, "read: \(text.string)")
      for line in text.lines {
        #expect((0...1).contains(line.confidence))
        #expect(line.boundingBox.x >= 0 && line.boundingBox.y >= 0)
        #expect(line.boundingBox.x + line.boundingBox.width <= photo.image.width)
        #expect(line.boundingBox.y + line.boundingBox.height <= photo.image.height)
      }
    }

    /// Without orientation detection a quarter-turned tag is not read: the option is what does it.
    @Test func quarterTurnNeedsOrientationDetection() async throws {
      let photo = try await TextPhoto.render("plant-tag", size: 24, rotation: 90)
      let plain = try await Self.read(photo.image)
      let accuracy = wordAccuracy(expected: photo.text, recognized: plain.string)
      print("word accuracy plant-tag 24px 90° without orientation detection: \(accuracy)")
      #expect(accuracy < 0.5)
    }

    /// Lines come top to bottom, each where its text is printed.
    @Test func linesComeInReadingOrderWithTheirBoxes() async throws {
      let photo = try await TextPhoto.render("receipt", size: 24)
      let text = try await Self.read(photo.image)
      let expected = photo.text.split(separator: "\n").map(String.init)
      #expect(text.lines.count == expected.count)
      for (line, printed) in zip(text.lines, expected) {
        #expect(wordAccuracy(expected: printed, recognized: line.text) >= 0.5, "\(line.text)")
      }
      let tops = text.lines.map(\.boundingBox.y)
      #expect(tops == tops.sorted())
      #expect(text.lines.allSatisfy { $0.boundingBox.width > 0 && $0.boundingBox.height > 0 })
    }

    /// `minimumConfidence` keeps exactly the lines at or above it.
    @Test func minimumConfidenceFiltersLines() async throws {
      let photo = try await TextPhoto.render("plant-tag", size: 14)
      let all = try await Self.read(photo.image, TextRecognitionOptions(minimumConfidence: 0))
      try #require(!all.isEmpty)  // the median below needs a line
      let confidences = all.lines.map(\.confidence).sorted()
      let threshold = confidences[confidences.count / 2]
      let kept = try await Self.read(
        photo.image, TextRecognitionOptions(minimumConfidence: threshold))
      #expect(kept.lines == all.lines.filter { $0.confidence >= threshold })
      let none = try await Self.read(
        photo.image, TextRecognitionOptions(minimumConfidence: (confidences.last ?? 0) + 0.001))
      #expect(none.isEmpty)
    }

    /// Copies share the engine pool; calls in flight at once each get their own handle.
    @Test func concurrentCallsReadTheSame() async throws {
      let photo = try await TextPhoto.render("sign", size: 24)
      let recognizer = Self.recognizer
      async let first = Self.read(photo.image, using: recognizer)
      async let second = Self.read(photo.image, using: recognizer)
      let (a, b) = try await (first, second)
      let again = try await Self.read(photo.image, using: recognizer)
      #expect(a == b)
      #expect(a == again)
      #expect(wordAccuracy(expected: photo.text, recognized: a.string) >= 0.9)
    }
  }
#endif
