/// A 1×1 convolution in whichever arithmetic the network was loaded with (see
/// ``EfficientNetLite0/Arithmetic``), so the forward pass does not care which.
enum PointwiseLayer: Sendable {
  /// 32-bit floats.
  case float32(PointwiseConvolution)
  /// 16-bit integers with 32-bit accumulators.
  case int16(QuantizedPointwiseConvolution)

  /// Builds the layer from row-major `[inputChannels][outputChannels]` weights; `nil` if the
  /// sizes disagree. `sparseInput` marks a projection, whose int16 form runs on a quantized
  /// ReLU6 output and may lay its weights out for that (see
  /// ``QuantizedPointwiseConvolution/WeightLayout``).
  init?(
    arithmetic: EfficientNetLite0.Arithmetic, weights: [Float], bias: [Float],
    inputChannels: Int, outputChannels: Int, relu6: Bool, sparseInput: Bool = false
  ) {
    switch arithmetic {
    case .float32:
      guard
        let layer = PointwiseConvolution(
          weights: weights, bias: bias, inputChannels: inputChannels,
          outputChannels: outputChannels, relu6: relu6)
      else { return nil }
      self = .float32(layer)
    case .int16:
      guard
        let layer = QuantizedPointwiseConvolution(
          weights: weights, bias: bias, inputChannels: inputChannels,
          outputChannels: outputChannels, relu6: relu6, sparseInput: sparseInput)
      else { return nil }
      self = .int16(layer)
    }
  }

  /// Output channels.
  var outputChannels: Int {
    switch self {
    case .float32(let layer): layer.outputChannels
    case .int16(let layer): layer.outputChannels
    }
  }

  /// `Int16` scratch values needed for `pixels` input rows (0 in float arithmetic).
  func scratchCount(pixels: Int) -> Int {
    switch self {
    case .float32: 0
    case .int16(let layer): layer.scratchCount(pixels: pixels)
    }
  }

  /// Runs the layer; see ``PointwiseConvolution/apply(_:pixels:into:residual:threads:)``.
  func apply(
    _ input: UnsafePointer<Float>, pixels: Int, into output: UnsafeMutablePointer<Float>,
    residual: UnsafePointer<Float>? = nil, scratch: UnsafeMutablePointer<Int16>, threads: Int
  ) {
    switch self {
    case .float32(let layer):
      layer.apply(input, pixels: pixels, into: output, residual: residual, threads: threads)
    case .int16(let layer):
      layer.apply(
        input, pixels: pixels, into: output, residual: residual, scratch: scratch,
        threads: threads)
    }
  }
}
