import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// Loading weights from file URLs, and rejecting damaged ones with typed errors.
@Suite(.offCooperativePool) struct EfficientNetLite0LoadingTests {
  @Test func loadsFromFileURLsAndMatchesBundled() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = try ClassifierModel(
      manifestURL: directory.appendingPathComponent("EfficientNetLite0.json"),
      labelsURL: directory.appendingPathComponent("ImageNetLabels.tsv"))
    #expect(model.network.classCount == 1000)
    #expect(model.labels == (try ClassifierModel.bundled().labels))
    // Licence and notice travel with the weights.
    let licence = try String(
      contentsOf: directory.appendingPathComponent("EfficientNetLite0.LICENSE"), encoding: .utf8)
    #expect(licence.contains("Apache License, Version 2.0"))
  }

  @Test func missingFilesAreTypedErrors() throws {
    let nowhere = FileManager.default.temporaryDirectory
      .appendingPathComponent("dexkit-missing-\(UUID().uuidString)/EfficientNetLite0.json")
    #expect {
      try EfficientNetLite0(manifestURL: nowhere)
    } throws: { error in
      if case .unreadableFile(let path, _) = error as? ClassifierError {
        path == "EfficientNetLite0.json"
      } else {
        false
      }
    }
  }

  @Test func truncatedBlobIsRejected() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let blob = directory.appendingPathComponent("EfficientNetLite0.weights")
    try Data(try Data(contentsOf: blob).prefix(1000)).write(to: blob)
    #expect {
      try EfficientNetLite0(manifestURL: directory.appendingPathComponent("EfficientNetLite0.json"))
    } throws: { error in
      if case .invalidWeights = error as? ClassifierError { true } else { false }
    }
  }

  @Test(arguments: [
    "not json", "{}", #"{"format":"other","version":1,"model":"x"}"#,
  ])
  func malformedManifestIsRejected(text: String) throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    try Data(text.utf8).write(to: manifest)
    #expect {
      try EfficientNetLite0(manifestURL: manifest)
    } throws: { error in
      if case .invalidManifest = error as? ClassifierError { true } else { false }
    }
  }

  @Test func manifestCannotPointOutsideItsDirectory() throws {
    try expectLoading(
      manifestWith: #""file": "EfficientNetLite0.weights""#,
      replacedBy: #""file": "../../etc/passwd""#,
      toThrow: .invalidManifest("weights file name ../../etc/passwd is not a plain file name"))
  }

  @Test func wrongShapeIsRejected() throws {
    try expectLoading(
      manifestWith: #""classes": 1000"#, replacedBy: #""classes": 999"#,
      toThrow: .invalidWeights(
        "tensor classifier.weight has shape [1280, 1000], expected [1280, 999]"))
  }

  /// Loads a copy of the bundled resources whose manifest has `original` replaced by
  /// `replacement` (which must occur in it), and expects `expected`.
  private func expectLoading(
    manifestWith original: String, replacedBy replacement: String,
    toThrow expected: ClassifierError, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    let text = try String(contentsOf: manifest, encoding: .utf8)
    try #require(text.contains(original), sourceLocation: sourceLocation)
    try Data(text.replacingOccurrences(of: original, with: replacement).utf8).write(to: manifest)
    #expect(throws: expected, sourceLocation: sourceLocation) {
      try EfficientNetLite0(manifestURL: manifest)
    }
  }

  @Test func wrongInputSizeIsRejected() throws {
    let network = try ClassifierModel.bundled().network
    #expect(throws: ClassifierError.invalidInput("expected 150528 values, got 3")) {
      try network.logits(forNormalizedInput: [0, 0, 0])
    }
  }

  /// A NaN or an infinity means nothing as a pixel and would spread through every logit: it is
  /// refused, with its position, before any backend runs.
  @Test(arguments: [Float.nan, .infinity, -.infinity])
  func nonFiniteInputIsRejected(value: Float) throws {
    let network = try ClassifierModel.bundled().network
    var input = [Float](repeating: 0.25, count: 224 * 224 * 3)
    input[12_345] = value
    #expect(throws: ClassifierError.invalidInput("value 12345 is not a finite number")) {
      try network.logits(forNormalizedInput: input)
    }
  }

  @Test(arguments: [
    (UInt16(0x0000), Float(0)), (0x3C00, 1), (0xC000, -2), (0x7BFF, 65504), (0x0001, 0x1p-24),
    (0x3555, 0.333251953125), (0x8000, -0.0),
  ])
  func halfToFloat(bits: UInt16, value: Float) {
    #expect(TensorStore.float(fromHalf: bits) == value)
  }

  @Test func halfSpecialValues() {
    #expect(TensorStore.float(fromHalf: 0x7C00) == .infinity)
    #expect(TensorStore.float(fromHalf: 0xFC00) == -.infinity)
    #expect(TensorStore.float(fromHalf: 0x7E00).isNaN)
  }
}
