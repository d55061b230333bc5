/// The network's first layer in whichever arithmetic the network was loaded with (see
/// ``EfficientNetLite0/Arithmetic``), so the forward pass does not care which.
enum StemLayer: Sendable {
  /// 32-bit floats.
  case float32(StemConvolution)
  /// 16-bit integers with 32-bit accumulators.
  case int16(QuantizedStemConvolution)

  /// Builds the layer from weights laid out `[kernel][kernel][3][outputChannels]`; `nil` if the
  /// sizes disagree (see ``StemShape``) or, in int16, a weight is not finite.
  init?(
    arithmetic: EfficientNetLite0.Arithmetic, weights: [Float], bias: [Float],
    outputChannels: Int, kernel: Int, stride: Int
  ) {
    guard let shape = StemShape(outputChannels: outputChannels, kernel: kernel, stride: stride)
    else { return nil }
    switch arithmetic {
    case .float32:
      guard let layer = StemConvolution(shape, weights: weights, bias: bias) else { return nil }
      self = .float32(layer)
    case .int16:
      guard let layer = QuantizedStemConvolution(shape, weights: weights, bias: bias) else {
        return nil
      }
      self = .int16(layer)
    }
  }

  /// `Int16` scratch values needed for an input size (0 in float arithmetic).
  func scratchCount(height: Int, width: Int) -> Int {
    switch self {
    case .float32: 0
    case .int16(let layer): layer.scratchCount(height: height, width: width)
    }
  }

  /// Runs the layer on an `height × width × 3` input; returns the output size.
  func apply(
    _ input: UnsafePointer<Float>, height: Int, width: Int,
    into output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Int16>, threads: Int
  ) -> (height: Int, width: Int) {
    switch self {
    case .float32(let layer):
      layer.apply(input, height: height, width: width, into: output, threads: threads)
    case .int16(let layer):
      layer.apply(
        input, height: height, width: width, into: output, scratch: scratch, threads: threads)
    }
  }
}
