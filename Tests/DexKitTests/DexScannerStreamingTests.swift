import DexKit
import DexKitTesting
import DexTestTraits
import Foundation
import Testing

/// The scanner on a streamed cloud reply: the name as a state of its own, then the entry.
@Suite("DexScanner streaming", .offCooperativePool)
struct DexScannerStreamingTests {
  static let tabbyJSON = """
    {"commonName": "Tabby Cat", "category": "animal", "scientificName": "Felis catus", \
    "summary": "A striped domestic cat.", "facts": ["Purrs at 25–150 Hz"], "rarity": "Common", \
    "confidence": 0.97}
    """

  @Test func theNameIsPublishedBeforeTheRestArrives() async throws {
    let vision = ScriptedVisionService(.streamed(Self.tabbyJSON, chunkSize: 9))
    let scanner = DexScanner(
      classifier: FixedClassifier(category: .animal, label: "tabby"), visionService: vision,
      downscaler: ScriptedDownscaler(), configuration: .init(maximumDimension: 200))
    var states: [DexScanState] = []
    for await state in scanner.scan(try SamplePhoto.cat.data) { states.append(state) }

    let identifying = states.filter { $0.phase == .identifying }
    #expect(identifying.first?.partialResult == PartialScanResult(commonName: "Tabby Cat"))
    #expect(identifying.count == 7)
    for (earlier, later) in zip(identifying, identifying.dropFirst()) {
      #expect(later.partialResult?.extends(earlier.partialResult ?? PartialScanResult()) == true)
    }
    #expect(states.last?.phase == .result)
    #expect(states.last?.result == tabby)
    #expect(states.last?.result == (try ScanResult(jsonString: Self.tabbyJSON)))
    // Nothing after the final state, and the identifying states come after the guess.
    #expect(states.lastIndex { $0.phase == .identifying } == states.count - 2)
    #expect(identifying.allSatisfy { $0.localGuess != nil })
    #expect(await vision.requests.map(\.streamed) == [true])
  }

  @Test func aCutStreamFallsBackAndKeepsTheNameItHad() async throws {
    let vision = ScriptedVisionService(
      .streamed([
        .text(#"{"commonName": "Tabby Cat", "categ"#), .cut(ScriptedVisionService.Failure()),
      ]))
    let scanner = DexScanner(
      classifier: FixedClassifier(category: .animal, label: "tabby"), visionService: vision,
      downscaler: ScriptedDownscaler(), configuration: .init(maximumDimension: 200))
    let final = await scanner.run(try SamplePhoto.cat.data)
    #expect(final.phase == .result)
    #expect(final.isOffline)
    #expect(final.partialResult == PartialScanResult(commonName: "Tabby Cat"))
    guard case .identificationFailed(let underlying) = final.cloudError else {
      Issue.record("expected identificationFailed, got \(String(describing: final.cloudError))")
      return
    }
    #expect(underlying is ScriptedVisionService.Failure)
  }

  @Test func aStalledStreamEndsAtTheDeadline() async throws {
    // The deadline must outlast reading the first piece, which takes milliseconds but waits
    // for a thread of the heavy-work executor (shared with forward passes and big decodes while
    // the whole suite runs on 2 cores): 30 s, not the 5 s that left a few seconds' slack; still
    // far shorter than the hour the stream stalls for. The test waits it out.
    let vision = ScriptedVisionService(
      .streamed([.text(#"{"commonName": "Tabby Cat", "#), .pause(.seconds(3600))]))
    let scanner = DexScanner(
      classifier: FixedClassifier.blind, visionService: vision,
      downscaler: ScriptedDownscaler(),
      configuration: .init(maximumDimension: 200, cloudTimeout: .seconds(30)))
    let final = await scanner.run(try SamplePhoto.cat.data)
    #expect(final.phase == .failed)
    #expect(final.error == .timedOut)
    #expect(final.partialResult?.commonName == "Tabby Cat")
  }

  @Test func theScriptedServiceDescribesWholeAndStreamed() async throws {
    let vision = ScriptedVisionService([
      .description("A tabby cat asleep."),
      .streamed([.text("A tabby "), .pause(.milliseconds(5)), .text("cat asleep.")]),
      .streamed([.text("A tabby "), .cut(ScriptedVisionService.Failure("dropped"))]),
    ])
    let whole = try await vision.describe(imageData: Data([1]), question: "What?", deadline: nil)
    #expect(whole.text == "A tabby cat asleep.")
    var pieces: [String] = []
    for try await piece in vision.streamDescription(
      imageData: Data([1]), question: nil, deadline: nil)
    {
      pieces.append(piece)
    }
    #expect(pieces == ["A tabby ", "cat asleep."])
    var received: [String] = []
    await #expect(throws: ScriptedVisionService.Failure("dropped")) {
      for try await piece in vision.streamDescription(
        imageData: Data([1]), question: nil, deadline: nil)
      {
        received.append(piece)
      }
    }
    #expect(received == ["A tabby "])
    #expect(await vision.requests.map(\.question) == ["What?", nil, nil])
    #expect(await vision.requests.map(\.task) == [.ask, .ask, .ask])
  }
}
