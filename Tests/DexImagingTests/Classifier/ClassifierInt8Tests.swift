import DexModel
import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// int8: the default where oneDNN grants it (a processor with VNNI, ranges that belong to the
/// weights), f32 elsewhere, and either one when asked by name; logged and visible on the
/// model; every layer on optimised kernels; its guesses calibrated by constants fitted on its
/// own logits.
@Suite(.offCooperativePool) struct ClassifierInt8Tests {
  /// Asking for int8 gives int8 exactly where oneDNN sees VNNI (f32 elsewhere, with a notice
  /// saying why), says so in the debug line, and runs no layer on oneDNN's reference kernels;
  /// asking for f32 gives f32 everywhere.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func int8IsChosenWhereAskedAndVNNI() throws {
    let capture = LogCapture()
    let model = try ClassifierFixtures.loadModel(
      backend: .oneDNN, precision: .int8, logger: capture.logger())
    let expected: ClassifierPrecision = EfficientNetLite0.hasInt8Kernels ? .int8 : .float32
    #expect(model.precision == expected)
    #expect(capture.lines.count == (expected == .int8 ? 1 : 2), "\(capture.lines)")
    // The views are those of the precision's own calibration.
    let views = (expected == .int8 ? ClassifierCalibration.fittedInt8 : .fitted).views
    #expect(
      capture.lines.last?.hasSuffix("precision=\(expected.rawValue) views=\(views.rawValue)")
        == true, "\(capture.lines)")
    if expected == .float32 {
      #expect(capture.lines.first?.hasPrefix("[notice]") == true, "\(capture.lines)")
      #expect(capture.lines.first?.contains("no VNNI") == true, "\(capture.lines)")
    }
    #expect(
      try ClassifierFixtures.loadModel(backend: .oneDNN, precision: .float32).precision
        == .float32)
    let portable = LogCapture()
    #expect(
      try ClassifierFixtures.loadModel(
        backend: .portable, precision: .int8, logger: portable.logger()
      ).precision == .float32)
    #expect(portable.lines.first?.contains("the portable path") == true, "\(portable.lines)")
    #if os(Linux) && OneDNN
      guard case .oneDNN(let network) = model.network.computeForTests else {
        Issue.record("not on oneDNN")
        return
      }
      _ = try model.logits(for: ClassifierFixtures.image("cat"), threads: 2)
      for threads in [1, min(2, OneDNNNetwork.threadLimit)] {
        let kernels = try #require(network.implementations(threads: threads))
        #expect(!kernels.split(separator: ",").contains { $0.hasPrefix("ref") }, "\(kernels)")
        // int8 layers run on oneDNN's VNNI kernels (the stem, f32, on others).
        if expected == .int8 { #expect(kernels.contains("_vnni"), "\(kernels)") }
      }
    #endif
  }

  /// The default precision follows the processor: ``ClassifierPrecision/automatic`` stands for
  /// int8 exactly where the oneDNN backend may run and oneDNN has int8 kernels (VNNI), and names
  /// asked for stay as asked, whichever the processor.
  @Test func automaticStandsForInt8ExactlyWhereGranted() {
    for int8Kernels in [false, true] {
      for backend in ClassifierBackend.allCases {
        let granted = int8Kernels && backend != .portable
        #expect(
          EfficientNetLite0.resolvedPrecision(
            .automatic, backend: backend, int8Kernels: int8Kernels) == (granted ? .int8 : .float32),
          "\(backend), int8 kernels \(int8Kernels)")
        for asked in [ClassifierPrecision.float32, .int8] {
          #expect(
            EfficientNetLite0.resolvedPrecision(asked, backend: backend, int8Kernels: int8Kernels)
              == asked)
        }
      }
    }
  }

  /// The public API's default is int8 where oneDNN grants it (VNNI), f32 elsewhere: the URL
  /// initialiser, the bundled model (shared with the one asked for by that name) and the
  /// classifier's configuration; the load logs the precision granted; f32 is still there when
  /// asked for by name. A model that runs int8 answers with int8's calibration, one that runs
  /// f32 with the float calibration.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func theDefaultFollowsTheProcessorAndEachPrecisionHasItsOwnCalibration() throws {
    let granted: ClassifierPrecision = EfficientNetLite0.hasInt8Kernels ? .int8 : .float32
    #expect(ImageClassifier.Configuration().precision == .automatic)
    #expect(ImageClassifier.Configuration(precision: .float32).precision == .float32)
    let manifest = try #require(ClassifierModel.bundledResource("EfficientNetLite0", "json"))
    let labels = try #require(ClassifierModel.bundledResource("ImageNetLabels", "tsv"))
    let capture = LogCapture()
    let automatic = try ClassifierModel(
      manifestURL: manifest, labelsURL: labels, logger: capture.logger())
    #expect(automatic.precision == granted)
    #expect(automatic.network.requestedPrecision == .automatic)
    #expect(automatic.calibration == (granted == .int8 ? .fittedInt8 : .fitted))
    #expect(capture.lines.count == 1, "\(capture.lines)")
    #expect(
      capture.lines.first?.hasSuffix(
        "precision=\(granted.rawValue) views=\(automatic.calibration.views.rawValue)") == true,
      "\(capture.lines)")
    let bundled = try ClassifierModel.bundled()
    #expect(bundled.precision == granted)
    #expect(bundled === (try ClassifierModel.bundled(backend: .automatic, precision: granted)))
    #expect(try ClassifierModel.bundled(backend: .portable).precision == .float32)
    let float32 = try ClassifierModel(manifestURL: manifest, labelsURL: labels, precision: .float32)
    #expect(float32.precision == .float32)
    #expect(float32.calibration == .fitted)
    #expect(
      try ClassifierModel.bundled(backend: .automatic, precision: .float32).precision == .float32)
    let int8 = try ClassifierModel(manifestURL: manifest, labelsURL: labels, precision: .int8)
    #expect(int8.precision == granted)
    #expect(int8.calibration == (granted == .int8 ? .fittedInt8 : .fitted))
    #expect(ClassifierCalibration.fittedInt8 != .fitted)
  }

  /// Weights without an int8 ranges file (a host's own, converted without
  /// `Scripts/classifier-int8-ranges.py`) load in f32 by default, without a notice: the
  /// default never fails for want of ranges.
  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func theDefaultRunsF32WithoutRanges() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.removeItem(
      at: directory.appendingPathComponent("EfficientNetLite0.int8.json"))
    let capture = LogCapture()
    let model = try ClassifierModel(
      manifestURL: directory.appendingPathComponent("EfficientNetLite0.json"),
      labelsURL: directory.appendingPathComponent("ImageNetLabels.tsv"), logger: capture.logger())
    #expect(model.precision == .float32)
    #expect(model.calibration == .fitted)
    #expect(capture.lines.count == 1 && capture.lines[0].hasPrefix("[debug]"), "\(capture.lines)")
  }

  // The bundled-model initialiser decodes through the system codecs (Linux only).
  #if os(Linux) && SystemImageCodecs
    /// A classifier whose configuration keeps the default calibration decides an int8 model's
    /// guesses with ``ClassifierCalibration/fittedInt8``; an explicit calibration is used as given.
    /// Confidences are compared to 1e-9, not exactly: the calibration sums its categories in a
    /// dictionary's order, which differs between two dictionaries of the same contents.
    @Test(.enabled(if: EfficientNetLite0.hasInt8Kernels))
    func aClassifierOnAnInt8ModelUsesItsOwnCalibration() async throws {
      let model = try ClassifierFixtures.model(.oneDNNInt8)
      let image = try ClassifierFixtures.image("cat")
      let distribution = model.rankedLabels(logits: try model.logits(for: image), limit: .max)
      let own = try #require(
        ImageClassifier.guess(fromDistribution: distribution, calibration: .fittedInt8))
      let float = try #require(
        ImageClassifier.guess(fromDistribution: distribution, calibration: .fitted))
      #expect(abs(own.confidence - float.confidence) > 1e-6)
      func sameConfidence(_ guess: LocalGuess?, _ expected: LocalGuess?) -> Bool {
        guard let guess, let expected else { return false }
        return abs(guess.confidence - expected.confidence) < 1e-9
      }
      let classifier = ImageClassifier(model: model, decoder: ImageDownscaler())
      #expect(sameConfidence(try await classifier.guess(for: image), own))
      let bundled = ImageClassifier(
        decoder: ImageDownscaler(), configuration: ImageClassifier.Configuration(precision: .int8))
      #expect(sameConfidence(try await bundled.guess(for: image), own))
      // The default configuration runs int8 here, and decides with int8's calibration.
      let byDefault = ImageClassifier(decoder: ImageDownscaler())
      #expect(sameConfidence(try await byDefault.guess(for: image), own))
      // The centre crop's f32 fit stands for int8's own too (both are the centre crop's).
      let onePass = ImageClassifier(
        model: model, decoder: ImageDownscaler(),
        configuration: ImageClassifier.Configuration(calibration: .fittedCentreCrop))
      #expect(sameConfidence(try await onePass.guess(for: image), own))
      let explicit = ImageClassifier(
        model: model, decoder: ImageDownscaler(),
        configuration: ImageClassifier.Configuration(calibration: .identity))
      let identity = ImageClassifier.guess(fromDistribution: distribution, calibration: .identity)
      #expect(sameConfidence(try await explicit.guess(for: image), identity))
    }
  #endif

  /// The ranges file's input means correct int8's biases: without them the same network's
  /// int8 logits for the fixtures lie farther from f32's (bias correction, issue 43).
  @Test(.enabled(if: EfficientNetLite0.hasInt8Kernels))
  func inputMeansBringInt8CloserToFloat() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("EfficientNetLite0.int8.json")
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    let labels = directory.appendingPathComponent("ImageNetLabels.tsv")
    let corrected = try ClassifierModel(manifestURL: manifest, labelsURL: labels, precision: .int8)
    var object = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    #expect(object.removeValue(forKey: "inputMeans") != nil)
    try JSONSerialization.data(withJSONObject: object).write(to: url)
    let uncorrected = try ClassifierModel(
      manifestURL: manifest, labelsURL: labels, precision: .int8)
    let float32 = try ClassifierModel(manifestURL: manifest, labelsURL: labels, precision: .float32)
    var distances: (corrected: Float, uncorrected: Float) = (0, 0)
    for name in ClassifierBackendTests.photos {
      let image = try ClassifierFixtures.image(name)
      let reference = try float32.logits(for: image)
      func distance(_ model: ClassifierModel) throws -> Float {
        zip(try model.logits(for: image), reference).map { abs($0 - $1) }.max() ?? 0
      }
      distances.corrected += try distance(corrected)
      distances.uncorrected += try distance(uncorrected)
    }
    #expect(distances.corrected < distances.uncorrected * 0.8, "\(distances)")
  }

  /// Ranges written for other weights are ignored (f32); a ranges file that is not one, or
  /// holds a range that is not a positive number, an f32 layer the network does not have or
  /// input means of the wrong size, is a typed error.
  @Test(
    .enabled(if: EfficientNetLite0.isOneDNNBuiltIn),
    arguments: ["other weights", "not json", "negative range", "no such layer", "short means"])
  func foreignOrBrokenRangesAreHandled(kind: String) throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("EfficientNetLite0.int8.json")
    var text = try String(contentsOf: url, encoding: .utf8)
    switch kind {
    case "other weights":
      text = text.replacingOccurrences(of: #""weightsSHA256": ""#, with: #""weightsSHA256": "0"#)
    case "not json": text = "not json"
    case "no such layer":
      text = text.replacingOccurrences(of: #""float32Layers": ["#, with: #""float32Layers": [49, "#)
    case "short means":
      var object = try #require(
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
      var means = try #require(object["inputMeans"] as? [[Double]])
      means[0] = [0.5]
      object["inputMeans"] = means
      text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    default: text = text.replacingOccurrences(of: #""input": "#, with: #""input": -"#)
    }
    try Data(text.utf8).write(to: url)
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    // A float32 model never reads the ranges, so a broken file cannot keep it from loading.
    let float32 = try EfficientNetLite0(
      manifestURL: manifest, backend: .oneDNN, precision: .float32)
    #expect(float32.precision == .float32)
    if kind == "other weights" {
      let network = try EfficientNetLite0(manifestURL: manifest, backend: .oneDNN, precision: .int8)
      #expect(network.precision == .float32)
      return
    }
    #expect {
      try EfficientNetLite0(manifestURL: manifest, backend: .oneDNN, precision: .int8)
    } throws: { error in
      if case .invalidManifest(let message) = error as? ClassifierError {
        message.contains(kind == "short means" ? "input means" : "EfficientNetLite0.int8.json")
      } else {
        false
      }
    }
  }
}
