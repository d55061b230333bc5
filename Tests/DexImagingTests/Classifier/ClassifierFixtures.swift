import Foundation
import Logging
import Testing

@testable import DexImaging

/// The real-photo fixtures written by `Scripts/classifier-reference.py` and their reference logits.
enum ClassifierFixtures {
  struct Reference: Decodable {
    struct Image: Decodable {
      var name: String
      var file: String
      var category: String
      var top5: [Int]
      var top5Labels: [String]
      var logits: [Float]
    }
    var images: [Image]
  }

  static func url(_ name: String, _ ext: String) throws -> URL {
    try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
  }

  static func reference() throws -> Reference {
    try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url("reference", "json")))
  }

  /// The ways the tests run the network: oneDNN (where it is built in) in f32 and in int8
  /// (where the processor has VNNI, f32 elsewhere), and the portable path.
  enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case oneDNN
    case oneDNNInt8
    case portable

    var backend: ClassifierBackend {
      self == .portable ? .portable : .oneDNN
    }
    var precision: ClassifierPrecision {
      self == .oneDNNInt8 ? .int8 : .float32
    }
    var testDescription: String { rawValue }

    /// The engines this build has (oneDNN only where it is built in).
    static var available: [Engine] {
      allCases.filter { $0 == .portable || EfficientNetLite0.isOneDNNBuiltIn }
    }
  }

  /// The bundled weights and labels loaded on `engine`, once per engine.
  static func model(_ engine: Engine) throws -> ClassifierModel {
    try models[engine, default: .failure(.missingResource("no such engine"))].get()
  }

  /// The portable path's logits for the fixture photo `name`, computed once per test run where
  /// the tests asking for it run one after the other (two asking at once may both compute it):
  /// four tests compare against them, and a debug-built portable pass costs seconds of CPU (the
  /// passes were most of DexImagingTests' CPU time). Computed in the caller, on its thread, as
  /// each test did before; a task of its own on the heavy-work threads made every suite queued
  /// behind those passes miss its deadlines.
  static func portableLogits(_ name: String) throws -> [Float] {
    if let logits = portableLogitsCache.logits(for: name) { return logits }
    let logits = try model(.portable).logits(for: image(name))
    portableLogitsCache.store(logits, for: name)
    return logits
  }

  private static let portableLogitsCache = LogitsCache()

  /// Logits by photo name (an `NSLock`, not `Mutex`, which not every Apple platform DexKit
  /// supports has).
  private final class LogitsCache: @unchecked Sendable {
    private let lock = NSLock()
    private var logits: [String: [Float]] = [:]  // guarded by `lock`

    func logits(for name: String) -> [Float]? { lock.withLock { logits[name] } }
    func store(_ value: [Float], for name: String) { lock.withLock { logits[name] = value } }
  }

  /// The bundled weights and labels loaded on a fresh network.
  static func loadModel(
    backend: ClassifierBackend,
    precision: ClassifierPrecision = .float32,
    fault: EfficientNetLite0.BackendFault? = nil, logger: Logger? = nil
  ) throws(ClassifierError) -> ClassifierModel {
    guard let manifest = ClassifierModel.bundledResource("EfficientNetLite0", "json"),
      let labels = ClassifierModel.bundledResource("ImageNetLabels", "tsv")
    else { throw .missingResource("bundled classifier resources") }
    let network = try EfficientNetLite0(
      manifestURL: manifest, backend: backend, precision: precision, fault: fault)
    let table = try ClassifierLabelTable(contentsOf: labels)
    if let logger {
      return try ClassifierModel(network: network, labels: table, logger: logger)
    }
    return try ClassifierModel(network: network, labels: table)
  }

  private static let models: [Engine: Result<ClassifierModel, ClassifierError>] =
    Dictionary(
      uniqueKeysWithValues: Engine.allCases.map { engine in
        let result = Result { () throws(ClassifierError) -> ClassifierModel in
          try loadModel(backend: engine.backend, precision: engine.precision)
        }
        return (engine, result)
      })

  static func ppmData(_ name: String) throws -> Data {
    try Data(contentsOf: url(name, "ppm"))
  }

  static func image(_ name: String) throws -> RGBImage {
    try PPMDecoder().decodePixels(from: ppmData(name))
  }

  /// A PPM (P6) encoding of `image`.
  static func ppm(_ image: RGBImage) -> Data {
    var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
    data.append(contentsOf: image.pixels)
    return data
  }

  /// The directory holding the bundled classifier resources.
  static func resourceDirectory() throws -> URL {
    try #require(ClassifierModel.bundledResource("EfficientNetLite0", "json"))
      .deletingLastPathComponent()
  }

  /// The bundled weights: the manifest's architecture and the tensors, as a backend reads them.
  static func weights() throws -> (architecture: WeightsManifest.Architecture, store: TensorStore) {
    let directory = try resourceDirectory()
    let manifest = try JSONDecoder().decode(
      WeightsManifest.self,
      from: Data(contentsOf: directory.appendingPathComponent("EfficientNetLite0.json")))
    let blob = try Data(contentsOf: directory.appendingPathComponent(manifest.weights.file))
    return (manifest.architecture, try TensorStore(manifest: manifest, blob: blob))
  }

  /// Copies the bundled resources into a fresh temporary directory (removed by the caller).
  static func copyOfResources() throws -> URL {
    let source = try resourceDirectory()
    let target = FileManager.default.temporaryDirectory
      .appendingPathComponent("dexkit-classifier-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: source, to: target)
    return target
  }
}
