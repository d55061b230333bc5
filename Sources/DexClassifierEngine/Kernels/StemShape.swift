/// The shape of the network's first layer, shared by both stem kernels (``StemConvolution`` and
/// ``QuantizedStemConvolution``): its output channels, kernel side and stride, the channels
/// padded to the width of one pass over the taps, the weight and bias counts it takes, and its
/// TF "SAME" output geometry.
///
/// Why it exists: the float and the int16 stem take the same weights layout, accept the same
/// sizes and pad their channels and bias the same way; one value states that for both, so the
/// two kernels cannot drift apart.
struct StemShape: Sendable, Equatable {
  /// Output channels, a multiple of 8.
  let outputChannels: Int
  /// Kernel side.
  let kernel: Int
  /// Stride.
  let stride: Int
  /// Output channels rounded up to a multiple of 32, the width of one pass over the taps.
  let paddedChannels: Int

  /// A stem from 3 input channels; `nil` unless both kernels can run it (eight-channel groups,
  /// positive sizes).
  init?(outputChannels: Int, kernel: Int, stride: Int) {
    guard outputChannels > 0, outputChannels % 8 == 0, kernel > 0, stride > 0 else { return nil }
    self.outputChannels = outputChannels
    self.kernel = kernel
    self.stride = stride
    paddedChannels = (outputChannels + 31) / 32 * 32
  }

  /// Whether `weights` (laid out `[kernel][kernel][3][outputChannels]`) and `bias` (one per output
  /// channel) have this shape's counts.
  func accepts(weights: [Float], bias: [Float]) -> Bool {
    weights.count == kernel * kernel * 3 * outputChannels && bias.count == outputChannels
  }

  /// `bias` (one value per output channel) followed by zeros up to ``paddedChannels``.
  func paddedBias(_ bias: [Float]) -> [Float] {
    bias + [Float](repeating: 0, count: paddedChannels - outputChannels)
  }

  /// The output size for an input size, and the zero rows above and columns left of the input
  /// (TF "SAME" padding).
  func output(height: Int, width: Int) -> (height: Int, width: Int, top: Int, left: Int) {
    let (oh, top) = DepthwiseConvolution.samePadding(input: height, kernel: kernel, stride: stride)
    let (ow, left) = DepthwiseConvolution.samePadding(input: width, kernel: kernel, stride: stride)
    return (oh, ow, top, left)
  }
}
