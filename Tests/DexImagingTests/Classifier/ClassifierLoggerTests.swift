import DexTestSupport
import Foundation
import Testing

@testable import DexImaging

/// The classifier logs to the host's logger, not to one of its own.
@Suite struct ClassifierLoggerTests {
  @Test func theClassifierLogsToTheHostsLogger() async throws {
    let capture = LogCapture()
    let classifier = ImageClassifier(decoder: PPMDecoder(), logger: capture.logger("host"))
    #expect(await classifier.classify(imageData: Data()) == nil)
    #expect(await classifier.rankedLabels(imageData: Data("P6 no".utf8), limit: 3).isEmpty)
    let lines = capture.lines
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.allSatisfy { $0.hasPrefix("[debug] host: ") }, "\(lines)")
  }

  @Test func aModelLoadedFromFilesReportsItsBackendToTheHostsLogger() throws {
    let capture = LogCapture()
    let manifest = try #require(ClassifierModel.bundledResource("EfficientNetLite0", "json"))
    let labels = try #require(ClassifierModel.bundledResource("ImageNetLabels", "tsv"))
    let model = try ClassifierModel(
      manifestURL: manifest, labelsURL: labels, backend: .portable,
      logger: capture.logger("host"))
    #expect(model.backend == .portable)
    #expect(capture.lines.contains { $0.contains("host: classifier backend") }, "\(capture.lines)")
  }
}
