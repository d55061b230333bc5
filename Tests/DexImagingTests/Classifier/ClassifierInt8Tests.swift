import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexClassifierEngine
@testable import DexImaging

/// The int8 opt-in: chosen only where asked for, on a processor with VNNI, with ranges that
/// belong to the weights; logged and visible on the model; every layer on optimised kernels.
@Suite(.offCooperativePool) struct ClassifierInt8Tests {
  /// Asking for int8 gives int8 exactly where oneDNN sees VNNI (f32 elsewhere), says so in the
  /// debug line, and runs no layer on oneDNN's reference kernels; f32 stays the default.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func int8IsChosenWhereAskedAndVNNI() throws {
    let capture = LogCapture()
    let model = try ClassifierFixtures.loadModel(
      backend: .oneDNN, precision: .int8, logger: capture.logger())
    let expected: ClassifierPrecision = EfficientNetLite0.hasInt8Kernels ? .int8 : .float32
    #expect(model.precision == expected)
    #expect(capture.lines.count == 1)
    #expect(capture.lines.first?.hasSuffix("precision=\(expected.rawValue)") == true)
    #expect(try ClassifierFixtures.loadModel(backend: .oneDNN).precision == .float32)
    #expect(
      try ClassifierFixtures.loadModel(backend: .portable, precision: .int8).precision == .float32)
    #if os(Linux) && OneDNN
      guard case .oneDNN(let network) = model.network.computeForTests else {
        Issue.record("not on oneDNN")
        return
      }
      _ = try model.logits(for: ClassifierFixtures.image("cat"), threads: 2)
      for threads in [1, min(2, OneDNNNetwork.threadLimit)] {
        let kernels = try #require(network.implementations(threads: threads))
        #expect(!kernels.split(separator: ",").contains { $0.hasPrefix("ref") }, "\(kernels)")
        if expected == .int8 { #expect(kernels.contains("int8"), "\(kernels)") }
      }
    #endif
  }

  /// Ranges written for other weights are ignored (f32); a ranges file that is not one, or
  /// holds a range that is not a positive number, is a typed error.
  @Test(
    .enabled(if: EfficientNetLite0.isOneDNNBuiltIn),
    arguments: ["other weights", "not json", "negative range"])
  func foreignOrBrokenRangesAreHandled(kind: String) throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("EfficientNetLite0.int8.json")
    var text = try String(contentsOf: url, encoding: .utf8)
    switch kind {
    case "other weights":
      text = text.replacingOccurrences(of: #""weightsSHA256": ""#, with: #""weightsSHA256": "0"#)
    case "not json": text = "not json"
    default: text = text.replacingOccurrences(of: #""input": "#, with: #""input": -"#)
    }
    try Data(text.utf8).write(to: url)
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    // A float32 model never reads the ranges, so a broken file cannot keep it from loading.
    let float32 = try EfficientNetLite0(manifestURL: manifest, backend: .oneDNN)
    #expect(float32.precision == .float32)
    if kind == "other weights" {
      let network = try EfficientNetLite0(manifestURL: manifest, backend: .oneDNN, precision: .int8)
      #expect(network.precision == .float32)
      return
    }
    #expect {
      try EfficientNetLite0(manifestURL: manifest, backend: .oneDNN, precision: .int8)
    } throws: { error in
      if case .invalidManifest(let message) = error as? NetworkError {
        message.contains("EfficientNetLite0.int8.json")
      } else {
        false
      }
    }
  }
}
