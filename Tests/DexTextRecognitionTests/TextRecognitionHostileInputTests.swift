#if os(Linux) && Tesseract
  import DexImaging
  import DexTestSupport
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexTextRecognition

  /// Hostile images and options: each ends in an empty result or a typed error, never a crash or
  /// a hang.
  @Suite(.offCooperativePool, .timeLimit(.minutes(5)))
  struct TextRecognitionHostileInputTests {
    static let recognizer = TesseractTextRecognizer()

    static func solid(width: Int, height: Int, value: UInt8 = 255) throws -> RGBImage {
      try #require(
        RGBImage(
          width: width, height: height,
          pixels: [UInt8](repeating: value, count: width * height * 3)))
    }

    /// Runs `body` and expects it to throw a ``TextRecognitionError`` that `matches` accepts.
    static func expectFailure(
      _ expected: String, sourceLocation: SourceLocation = #_sourceLocation,
      matching matches: (TextRecognitionError) -> Bool, _ body: () async throws -> Void
    ) async {
      let error = await #expect(throws: TextRecognitionError.self, sourceLocation: sourceLocation) {
        try await body()
      }
      if let error, !matches(error) {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
      }
    }

    /// A fresh tessdata directory, removed after `body`.
    static func withDataDirectory(_ body: (URL) async throws -> Void) async throws {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("dex-tessdata-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      try await body(directory)
    }

    @Test(arguments: [(1, 1), (2, 2), (3, 3), (8, 8), (1, 500), (500, 1), (4, 300)])
    func tinyImageHasNoText(_ size: (width: Int, height: Int)) async throws {
      let black = try Self.solid(width: size.width, height: size.height, value: 0)
      #expect(try await Self.recognizer.recognizeText(in: black).isEmpty)
      let white = try Self.solid(width: size.width, height: size.height)
      #expect(try await Self.recognizer.recognizeText(in: white).isEmpty)
    }

    @Test func blankImageHasNoText() async throws {
      let text = try await Self.recognizer.recognizeText(
        in: try Self.solid(width: 640, height: 480))
      #expect(text.isEmpty)
    }

    @Test func noiseImageEndsWithConfidentLinesOnly() async throws {
      var generator = SeededGenerator(seed: 31)
      let pixels = (0..<(640 * 480 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let image = try #require(RGBImage(width: 640, height: 480, pixels: pixels))
      let options = TextRecognitionOptions(minimumConfidence: 0.6)
      let text = try await Self.recognizer.recognizeText(in: image, options: options)
      print("noise image: \(text.lines.count) lines at 0.6 or more")
      #expect(text.lines.allSatisfy { $0.confidence >= 0.6 })
    }

    @Test func imageOverThePixelLimitIsRefused() async throws {
      let image = try Self.solid(width: 2000, height: 1000)
      await #expect(
        throws: TextRecognitionError.imageTooLarge(
          width: 2000, height: 1000, maximumPixelCount: 1_000_000)
      ) {
        try await Self.recognizer.recognizeText(
          in: image, options: TextRecognitionOptions(maximumPixelCount: 1_000_000))
      }
    }

    @Test func imageWiderThanTesseractTakesIsRefused() async throws {
      let image = try Self.solid(width: 40_000, height: 4)
      await Self.expectFailure("recognitionFailed naming 32767") {
        guard case .recognitionFailed(let message) = $0 else { return false }
        return message.contains("32767")
      } _: {
        _ = try await Self.recognizer.recognizeText(in: image)
      }
    }

    @Test func zeroTimeoutTimesOut() async throws {
      let photo = try await TextPhoto.render("receipt", size: 20)
      await #expect(throws: TextRecognitionError.timedOut(after: .zero)) {
        try await Self.recognizer.recognizeText(
          in: photo.image, options: TextRecognitionOptions(timeout: .zero))
      }
    }

    @Test func tinyTimeoutTimesOut() async throws {
      let photo = try await TextPhoto.render("page", size: 28, canvas: "1600x1800")
      await #expect(throws: TextRecognitionError.timedOut(after: .milliseconds(1))) {
        try await Self.recognizer.recognizeText(
          in: photo.image, options: TextRecognitionOptions(timeout: .milliseconds(1)))
      }
      // The engine that timed out serves the next call normally.
      let text = try await Self.recognizer.recognizeText(in: photo.image)
      #expect(wordAccuracy(expected: photo.text, recognized: text.string) >= 0.9)
    }

    @Test func cancellationMidRecognitionEndsWithCancellationError() async throws {
      let photo = try await TextPhoto.render("page", size: 40, canvas: "2600x2600")
      let recognizer = TesseractTextRecognizer(maximumConcurrentRecognitions: 1)
      let options = TextRecognitionOptions(timeout: .seconds(600))
      // Warm the pool (Init done) and measure the same page read to the end.
      let clock = ContinuousClock()
      let uncancelledStart = clock.now
      _ = try await recognizer.recognizeText(in: photo.image, options: options)
      let uncancelled = clock.now - uncancelledStart
      #expect(await recognizer.pool.idleCount == 1)

      let start = clock.now
      let task = Task { try await recognizer.recognizeText(in: photo.image, options: options) }
      // The one engine leaves the idle list when the recognition starts: cancel mid-page, soon
      // enough that a read faster than the first (less load now) is still under way.
      while await recognizer.pool.idleCount == 1 { try await Task.sleep(for: .milliseconds(5)) }
      try await Task.sleep(for: min(uncancelled / 4, .milliseconds(200)))
      task.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      let cancelled = clock.now - start
      print("page read in \(uncancelled); cancelled after \(cancelled)")
      #expect(cancelled < uncancelled)
      // Tesseract stops at its next check and its engine goes back to the pool.
      while await recognizer.pool.idleCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
      #expect(await recognizer.pool.liveCount == 1)
    }

    @Test func bogusDataDirectoryIsEngineUnavailable() async throws {
      let recognizer = TesseractTextRecognizer(dataDirectory: "/nonexistent/dexkit-tessdata")
      #expect(recognizer.availableLanguages.isEmpty)
      let image = try Self.solid(width: 64, height: 64)
      await Self.expectFailure("engineUnavailable naming the directory") {
        guard case .engineUnavailable(let detail) = $0 else { return false }
        return detail.contains("/nonexistent/dexkit-tessdata")
      } _: {
        _ = try await recognizer.recognizeText(in: image)
      }
    }

    @Test func corruptLanguageDataIsEngineUnavailable() async throws {
      try await Self.withDataDirectory { directory in
        try Data("not a traineddata file".utf8).write(
          to: directory.appendingPathComponent("eng.traineddata"))
        let recognizer = TesseractTextRecognizer(dataDirectory: directory.path)
        #expect(recognizer.availableLanguages == ["eng"])
        let image = try Self.solid(width: 64, height: 64)
        await Self.expectFailure("engineUnavailable") {
          guard case .engineUnavailable = $0 else { return false }
          return true
        } _: {
          _ = try await recognizer.recognizeText(in: image)
        }
      }
    }

    /// Links the installed `eng.traineddata` into `directory`.
    static func linkInstalledEnglish(into directory: URL) throws {
      let installed = try #require(recognizer.dataDirectory)
      try FileManager.default.createSymbolicLink(
        at: directory.appendingPathComponent("eng.traineddata"),
        withDestinationURL: URL(fileURLWithPath: installed).appendingPathComponent(
          "eng.traineddata"))
    }

    /// Ways a `.traineddata` can be damaged that end the whole process inside Tesseract (an
    /// uncaught C++ exception, a failed assertion: `abort()`) or block it (a FIFO).
    enum Damage: String, CaseIterable, Sendable {
      case modelByteFlipped, dictionaryByteFlipped, offsetGoesBackwards, offsetPastTheEnd, fifo
      case directory, empty
    }

    /// The installed `eng.traineddata`, and where its components start (Tesseract's container:
    /// an entry count, then that many 64-bit offsets, -1 for an absent one; little-endian here).
    static func installedEnglish() throws -> (data: Data, offsets: [Int64]) {
      let installed = try #require(recognizer.dataDirectory)
      let data = try Data(
        contentsOf: URL(fileURLWithPath: installed).appendingPathComponent("eng.traineddata"))
      let bytes = [UInt8](data)
      func integer(at index: Int, size: Int) -> UInt64 {
        (0..<size).reduce(0) { $0 | UInt64(bytes[index + $1]) << (8 * $1) }
      }
      let count = Int(integer(at: 0, size: 4))
      try #require(count > 23 && count <= 1000 && bytes.count > 4 + 8 * count)
      return (data, (0..<count).map { Int64(bitPattern: integer(at: 4 + 8 * $0, size: 8)) })
    }

    /// Writes `offset` as entry `index` of the container's table.
    static func setOffset(_ offset: Int64, at index: Int, in data: inout Data) {
      withUnsafeBytes(of: offset.littleEndian) {
        data.replaceSubrange((4 + 8 * index)..<(12 + 8 * index), with: $0)
      }
    }

    /// Damaged language data is refused with `engineUnavailable` naming it; without the shim's
    /// checks each of these ended the test process (or hung it, for the FIFO). The dictionary's
    /// damage shows only in a recognition that reads it (not this blank image's): the shim's test
    /// load reads a line of text.
    @Test(arguments: Damage.allCases)
    func damagedLanguageDataIsRefusedNotFatal(_ damage: Damage) async throws {
      let (original, offsets) = try Self.installedEnglish()
      try await Self.withDataDirectory { directory in
        let file = directory.appendingPathComponent("eng.traineddata")
        var data = original
        switch damage {
        case .modelByteFlipped:  // component 17, the LSTM model: a failed ASSERT_HOST
          let start = Int(offsets[17])
          data[start] ^= 0xFF
        case .dictionaryByteFlipped:  // component 18, punctuation: read out of bounds when used
          data[Int(offsets[18]) + 16] ^= 0xFF
        case .offsetGoesBackwards:  // a component sized negative: std::length_error, uncaught
          let present = offsets.indices.filter { offsets[$0] > 0 }
          Self.setOffset(offsets[present[0]] - 5, at: present[1], in: &data)
        case .offsetPastTheEnd:  // a component sized in terabytes: std::bad_alloc, uncaught
          Self.setOffset(1 << 40, at: offsets.count - 1, in: &data)
        case .fifo, .directory, .empty:
          break
        }
        switch damage {
        case .fifo: #expect(mkfifo(file.path, 0o600) == 0)
        case .directory:
          try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        case .empty: try Data().write(to: file)
        default: try data.write(to: file)
        }
        let recognizer = TesseractTextRecognizer(dataDirectory: directory.path)
        let image = try Self.solid(width: 64, height: 64)
        await Self.expectFailure("engineUnavailable naming eng") {
          guard case .engineUnavailable(let detail) = $0 else { return false }
          return detail.contains("\"eng\"")
        } _: {
          _ = try await recognizer.recognizeText(in: image)
        }
      }
    }

    /// Damaged orientation data (loaded by Tesseract inside the first recognition that detects
    /// orientation) fails that recognition with a message naming it, not the process.
    @Test func damagedOrientationDataFailsTheRecognitionNotTheProcess() async throws {
      let installed = try #require(Self.recognizer.dataDirectory)
      try await Self.withDataDirectory { directory in
        try Self.linkInstalledEnglish(into: directory)
        var osd = try Data(
          contentsOf: URL(fileURLWithPath: installed).appendingPathComponent("osd.traineddata"))
        let unicharset = Int(osd[12]) | Int(osd[13]) << 8 | Int(osd[14]) << 16 | Int(osd[15]) << 24
        osd[unicharset + 8] ^= 0xFF  // a class id out of range: a failed ASSERT_HOST
        try osd.write(to: directory.appendingPathComponent("osd.traineddata"))
        let recognizer = TesseractTextRecognizer(dataDirectory: directory.path)
        await Self.expectFailure("recognitionFailed naming osd") {
          guard case .recognitionFailed(let detail) = $0 else { return false }
          return detail.contains("\"osd\"")
        } _: {
          _ = try await recognizer.recognizeText(
            in: try Self.solid(width: 64, height: 64),
            options: TextRecognitionOptions(detectsOrientation: true))
        }
      }
    }

    /// A language named twice is loaded once by Tesseract; the engine is still whole.
    @Test func aLanguageNamedTwiceIsLoadedOnce() async throws {
      let blank = try Self.solid(width: 64, height: 64)
      let text = try await Self.recognizer.recognizeText(
        in: blank, options: TextRecognitionOptions(languages: ["eng", "eng"]))
      #expect(text.isEmpty)
    }

    @Test func unknownLanguageIsLanguageUnavailable() async throws {
      await #expect(throws: TextRecognitionError.languageUnavailable("xyz")) {
        try await Self.recognizer.recognizeText(
          in: try Self.solid(width: 64, height: 64),
          options: TextRecognitionOptions(languages: ["eng", "xyz"]))
      }
    }

    @Test func orientationWithoutOSDDataIsLanguageUnavailable() async throws {
      try await Self.withDataDirectory { directory in
        try Self.linkInstalledEnglish(into: directory)
        let recognizer = TesseractTextRecognizer(dataDirectory: directory.path)
        await #expect(throws: TextRecognitionError.languageUnavailable("osd")) {
          try await recognizer.recognizeText(
            in: try Self.solid(width: 64, height: 64),
            options: TextRecognitionOptions(detectsOrientation: true))
        }
      }
    }

    @Test(arguments: [[String](), ["../eng"], ["eng", ""], ["eng+deu"]])
    func malformedLanguageListIsInvalid(_ languages: [String]) async throws {
      let image = try Self.solid(width: 64, height: 64)
      await Self.expectFailure("invalidOptions") {
        guard case .invalidOptions = $0 else { return false }
        return true
      } _: {
        _ = try await Self.recognizer.recognizeText(
          in: image, options: TextRecognitionOptions(languages: languages))
      }
    }

    @Test func negativeTimeoutIsInvalid() async throws {
      await #expect(throws: TextRecognitionError.invalidOptions("the timeout is negative")) {
        try await Self.recognizer.recognizeText(
          in: try Self.solid(width: 64, height: 64),
          options: TextRecognitionOptions(timeout: .seconds(-1)))
      }
    }

    @Test func dataDirectoryComesFromTessdataPrefixFirst() throws {
      let installed = try #require(Self.recognizer.dataDirectory)
      #expect(
        TesseractTextRecognizer.defaultDataDirectory(environment: ["TESSDATA_PREFIX": installed])
          == installed)
      let parent = (installed as NSString).deletingLastPathComponent
      if installed.hasSuffix("/tessdata") {
        #expect(
          TesseractTextRecognizer.defaultDataDirectory(environment: ["TESSDATA_PREFIX": parent])
            == installed)
      }
      #expect(
        TesseractTextRecognizer.candidateDataDirectories(environment: [:]).first
          == "/usr/share/tesseract-ocr/5/tessdata")
    }
  }
#endif
