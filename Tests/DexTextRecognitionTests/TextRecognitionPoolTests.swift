#if os(Linux) && Tesseract
  import DexImaging
  import DexTestSupport
  import DexTestTraits
  import Foundation
  import Logging
  import Testing

  @testable import DexTextRecognition

  /// The engine pool's bounds: at most the cap of engines per language list, a first-in first-out
  /// queue whose cancelled waiters leave, and answers at the deadline or on cancellation even
  /// while Tesseract cannot be interrupted (an Init held back by a gate stands in for that).
  @Suite(.offCooperativePool, .timeLimit(.minutes(5)))
  struct TextRecognitionPoolTests {
    /// A recognizer whose engines load only once `gate` opens.
    static func gatedRecognizer(
      _ gate: BlockingGate, maximumConcurrentRecognitions: Int = 2
    ) -> TesseractTextRecognizer {
      let pool = TesseractEnginePool(maximumEnginesPerKey: maximumConcurrentRecognitions) {
        key throws(TextRecognitionError) in
        await gate.wait()
        return try await TesseractEngine.make(key: key)
      }
      return TesseractTextRecognizer(
        dataDirectory: nil, logger: Logger(label: "test"), pool: pool)
    }

    /// A blank 64×64 image (no text, quick to read).
    static func blank() throws -> RGBImage {
      try #require(
        RGBImage(width: 64, height: 64, pixels: [UInt8](repeating: 255, count: 64 * 64 * 3)))
    }

    /// A recognizer with one engine, whose loading `gate` holds back, and the call that waits for
    /// it (already in the factory when returned).
    static func heldSingleEngine(
      _ gate: BlockingGate
    ) async throws -> (TesseractTextRecognizer, Task<RecognizedText, any Error>) {
      let recognizer = gatedRecognizer(gate, maximumConcurrentRecognitions: 1)
      let image = try blank()
      let first = Task { try await recognizer.recognizeText(in: image) }
      try await eventually { gate.enteredCount == 1 }
      return (recognizer, first)
    }

    /// Polls `condition` every 10 ms (the suite's time limit bounds it).
    static func eventually(_ condition: () async -> Bool) async throws {
      while !(await condition()) { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func concurrentCallsNeverExceedTheCap() async throws {
      let photo = try await TextPhoto.render("receipt", size: 20)
      let recognizer = TesseractTextRecognizer(maximumConcurrentRecognitions: 2)
      #expect(recognizer.maximumConcurrentRecognitions == 2)
      let texts = try await withThrowingTaskGroup(of: String.self) { group in
        for _ in 0..<6 {
          group.addTask { try await recognizer.recognizeText(in: photo.image).string }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(texts.count == 6)
      #expect(texts.allSatisfy { wordAccuracy(expected: photo.text, recognized: $0) >= 0.9 })
      #expect(await recognizer.pool.peakLiveCount <= 2)
      #expect(await recognizer.pool.createdCount <= 2)
      #expect(await recognizer.pool.waiterCount == 0)
    }

    @Test func timeoutAnswersAtOnceWhileTesseractRunsOn() async throws {
      let gate = BlockingGate()
      let recognizer = Self.gatedRecognizer(gate)
      let photo = try await TextPhoto.render("receipt", size: 20)
      await #expect(throws: TextRecognitionError.timedOut(after: .milliseconds(200))) {
        try await recognizer.recognizeText(
          in: photo.image, options: TextRecognitionOptions(timeout: .milliseconds(200)))
      }
      // Answered while the engine was still loading; it stays out of the idle list until then.
      #expect(!gate.isOpen)
      #expect(await recognizer.pool.liveCount == 1)
      #expect(await recognizer.pool.idleCount == 0)
      gate.open()
      try await Self.eventually { await recognizer.pool.idleCount == 1 }
      // That engine serves the next call.
      let text = try await recognizer.recognizeText(in: photo.image)
      #expect(wordAccuracy(expected: photo.text, recognized: text.string) >= 0.9)
      #expect(await recognizer.pool.createdCount == 1)
    }

    @Test func cancellationAnswersAtOnceWhileTesseractRunsOn() async throws {
      let gate = BlockingGate()
      let recognizer = Self.gatedRecognizer(gate)
      let image = try Self.blank()
      let task = Task { try await recognizer.recognizeText(in: image) }
      try await Self.eventually { gate.enteredCount == 1 }
      task.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      #expect(!gate.isOpen)
      gate.open()
      try await Self.eventually { await recognizer.pool.idleCount == 1 }
      #expect(await recognizer.pool.liveCount == 1)
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
      let gate = BlockingGate()
      let (recognizer, first) = try await Self.heldSingleEngine(gate)
      let image = try Self.blank()
      let second = Task { try await recognizer.recognizeText(in: image) }
      try await Self.eventually { await recognizer.pool.waiterCount == 1 }
      second.cancel()
      await #expect(throws: CancellationError.self) { try await second.value }
      try await Self.eventually { await recognizer.pool.waiterCount == 0 }
      gate.open()
      #expect(try await first.value.isEmpty)
      #expect(await recognizer.pool.createdCount == 1)
      #expect(await recognizer.pool.peakLiveCount == 1)
    }

    @Test func waitersAreServedFirstInFirstOut() async throws {
      let gate = BlockingGate()
      let (recognizer, first) = try await Self.heldSingleEngine(gate)
      let image = try Self.blank()
      var waiters: [Task<RecognizedText, any Error>] = []
      for index in 0..<3 {
        waiters.append(Task { try await recognizer.recognizeText(in: image) })
        try await Self.eventually { await recognizer.pool.waiterCount == index + 1 }
      }
      gate.open()
      _ = try await first.value
      for waiter in waiters { _ = try await waiter.value }
      #expect(await recognizer.pool.servedWaiters == [0, 1, 2])
    }
  }
#endif
