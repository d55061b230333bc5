import Foundation

/// The JSON manifest written by `Scripts/classifier-convert.py` next to the weights blob.
struct WeightsManifest: Decodable, Sendable {
  struct Weights: Decodable, Sendable {
    var file: String
    var byteCount: Int
    var sha256: String
  }
  struct Block: Decodable, Sendable {
    var expand: Int
    var kernel: Int
    var stride: Int
    var inputChannels: Int
    var outputChannels: Int
  }
  struct Architecture: Decodable, Sendable {
    var stemChannels: Int
    var headChannels: Int
    var classes: Int
    var activation: String
    var padding: String
    var blocks: [Block]
  }
  struct Tensor: Decodable, Sendable {
    var name: String
    var layout: String
    var dtype: String
    var shape: [Int]
    var offset: Int
    var byteCount: Int
  }
  var format: String
  var version: Int
  var model: String
  var architecture: Architecture
  var weights: Weights
  var tensors: [Tensor]
}
