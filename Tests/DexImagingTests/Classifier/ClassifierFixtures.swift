import Foundation
import Testing

@testable import DexClassifierEngine
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

  /// The bundled weights and labels loaded with `arithmetic`, once per arithmetic.
  static func model(_ arithmetic: EfficientNetLite0.Arithmetic) throws -> ClassifierModel {
    try models[arithmetic, default: .failure(.missingResource("no such arithmetic"))].get()
  }

  private static let models:
    [EfficientNetLite0.Arithmetic: Result<ClassifierModel, ClassifierError>] =
      Dictionary(
        uniqueKeysWithValues: EfficientNetLite0.Arithmetic.allCases.map { arithmetic in
          let result = Result { () throws(ClassifierError) -> ClassifierModel in
            guard let manifest = ClassifierModel.bundledResource("EfficientNetLite0", "json"),
              let labels = ClassifierModel.bundledResource("ImageNetLabels", "tsv")
            else { throw .missingResource("bundled classifier resources") }
            let network: EfficientNetLite0
            do throws(NetworkError) {
              network = try EfficientNetLite0(manifestURL: manifest, arithmetic: arithmetic)
            } catch {
              throw ClassifierError(error)
            }
            return try ClassifierModel(
              network: network, labels: ClassifierLabelTable(contentsOf: labels))
          }
          return (arithmetic, result)
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

  /// Copies the bundled resources into a fresh temporary directory (removed by the caller).
  static func copyOfResources() throws -> URL {
    let source = try resourceDirectory()
    let target = FileManager.default.temporaryDirectory
      .appendingPathComponent("dexkit-classifier-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: source, to: target)
    return target
  }
}
