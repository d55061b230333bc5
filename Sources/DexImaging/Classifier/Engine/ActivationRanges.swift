import Foundation

/// The calibrated activation ranges behind the int8 path: the largest magnitude of the input
/// and of every convolution's output over the tune photos of the evaluation set, written by
/// `Scripts/classifier-int8-ranges.py` next to the weights (`<manifest name>.int8.json`).
///
/// They belong to one set of weights (``weightsSHA256``); weights without a matching file run
/// in f32.
struct ActivationRanges: Decodable, Sendable, Equatable {
  var format: String
  var version: Int
  var weightsSHA256: String
  /// The largest magnitude of the normalised input.
  var input: Float
  /// One per convolution, in ``NetworkLayers``' order.
  var layers: [Float]
  /// The convolutions (indices into ``layers``) that stay in f32 around the int8 ones: the
  /// script keeps those whose 8-bit arithmetic moved the evaluation set's guesses most.
  var float32Layers: [Int]?
  /// Per convolution, the mean of each input channel over the tune photos (f32 reference): an
  /// int8 layer's bias absorbs the mean shift its rounded weights cause (bias correction).
  var inputMeans: [[Float]]?

  /// The ranges next to `manifestURL` for `manifest`'s weights, or `nil` when there is no file
  /// or it belongs to other weights or another graph (then the network runs in f32).
  /// `inputChannels` holds each convolution's input channels (``NetworkLayers``' order): every
  /// part of the file is checked against the network here, whether or not this processor then
  /// runs int8, so a file that does not fit is refused the same way on every host.
  static func load(
    nextTo manifestURL: URL, manifest: WeightsManifest, inputChannels: [Int]
  ) throws(ClassifierError) -> ActivationRanges? {
    let layerCount = inputChannels.count
    let url = manifestURL.deletingPathExtension().appendingPathExtension("int8.json")
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    let data = try ClassifierFile.contents(
      of: url, maximumByteCount: ClassifierFile.maximumJSONByteCount)
    let ranges: ActivationRanges
    do {
      ranges = try JSONDecoder().decode(ActivationRanges.self, from: data)
    } catch {
      throw .invalidManifest("\(url.lastPathComponent) is not an int8 ranges file (\(error))")
    }
    guard ranges.format == "dexkit-classifier-int8-ranges", ranges.version == 1,
      ranges.weightsSHA256 == manifest.weights.sha256, ranges.layers.count == layerCount
    else { return nil }
    guard (ranges.float32Layers ?? []).allSatisfy({ (0..<layerCount).contains($0) }) else {
      throw .invalidManifest(
        "\(url.lastPathComponent) names an f32 layer the network does not have")
    }
    if let means = ranges.inputMeans {
      guard means.map(\.count) == inputChannels, means.allSatisfy({ $0.allSatisfy(\.isFinite) })
      else {
        throw .invalidManifest(
          "\(url.lastPathComponent) holds input means that do not fit the network")
      }
    }
    guard ([ranges.input] + ranges.layers).allSatisfy({ $0.isFinite && $0 > 0 && $0 < 1e6 }) else {
      throw .invalidManifest("\(url.lastPathComponent) holds a range that is not a positive number")
    }
    return ranges
  }
}
