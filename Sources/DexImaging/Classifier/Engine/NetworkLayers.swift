/// The network as a list of convolutions with plain weights, read once from the weights blob:
/// what both backends are built from.
///
/// EfficientNet-Lite0 is a 3×3 stride-2 stem, inverted-residual blocks (an optional 1×1
/// expansion, a depthwise convolution, a 1×1 projection, the block's input added back where
/// shapes allow), a 1×1 head, global average pooling and a fully connected classifier. Every
/// convolution but the projections ends in ReLU6. Layout NHWC, TensorFlow "SAME" padding.
struct NetworkLayers: Sendable {
  struct Layer: Sendable {
    /// The square kernel's side, and its stride.
    var kernel: Int, stride: Int
    var inputChannels: Int, outputChannels: Int
    /// Whether each channel is filtered on its own (then input and output channels are equal).
    var depthwise: Bool
    /// Whether ReLU6 (a clip to `0...6`) follows.
    var relu6: Bool
    /// The layer whose input this layer's output adds, for a block's residual sum.
    var residualFrom: Int?
    /// `[kernel, kernel, input, output]`, or `[kernel, kernel, channels]` when depthwise.
    var weights: [Float]
    var bias: [Float]
  }

  var layers: [Layer]
  /// `[features, classes]`.
  var classifierWeights: [Float]
  var classifierBias: [Float]
  var features: Int
  var classes: Int

  /// Reads the layers of `arch` out of `store` (which checks every shape).
  init(architecture arch: WeightsManifest.Architecture, store: TensorStore) throws(ClassifierError)
  {
    func layer(
      _ name: String, kernel: Int = 1, stride: Int = 1, _ cin: Int, _ cout: Int,
      depthwise: Bool = false, relu6: Bool = true, residualFrom: Int? = nil
    ) throws(ClassifierError) -> Layer {
      let shape =
        depthwise
        ? [kernel, kernel, cout] : kernel == 1 ? [cin, cout] : [kernel, kernel, cin, cout]
      return Layer(
        kernel: kernel, stride: stride, inputChannels: cin, outputChannels: cout,
        depthwise: depthwise, relu6: relu6, residualFrom: residualFrom,
        weights: try store.tensor("\(name).weight", shape: shape),
        bias: try store.tensor("\(name).bias", shape: [cout]))
    }
    var layers = [try layer("stem", kernel: 3, stride: 2, 3, arch.stemChannels)]
    var channels = arch.stemChannels
    for (i, spec) in arch.blocks.enumerated() {
      guard spec.inputChannels == channels, (1...16).contains(spec.expand),
        [3, 5, 7].contains(spec.kernel), [1, 2].contains(spec.stride),
        (8...8192).contains(spec.outputChannels)
      else { throw .invalidManifest("block \(i) does not chain or has unsupported parameters") }
      let blockInput = layers.count
      let expanded = channels * spec.expand
      if spec.expand != 1 {
        layers.append(try layer("blocks.\(i).expand", channels, expanded))
      }
      layers.append(
        try layer(
          "blocks.\(i).depthwise", kernel: spec.kernel, stride: spec.stride, expanded, expanded,
          depthwise: true))
      let residual = spec.stride == 1 && spec.inputChannels == spec.outputChannels
      layers.append(
        try layer(
          "blocks.\(i).project", expanded, spec.outputChannels, relu6: false,
          residualFrom: residual ? blockInput : nil))
      channels = spec.outputChannels
    }
    layers.append(try layer("head", channels, arch.headChannels))
    self.layers = layers
    self.classifierWeights = try store.tensor(
      "classifier.weight", shape: [arch.headChannels, arch.classes])
    self.classifierBias = try store.tensor("classifier.bias", shape: [arch.classes])
    self.features = arch.headChannels
    self.classes = arch.classes
  }

  /// Each convolution's input channels for `arch`, in the order of ``layers``, computed from
  /// the manifest alone (no weights read): what the int8 ranges' per-layer input means must fit.
  /// Wrapping arithmetic: an absurd manifest gives absurd counts, not a crash; building the
  /// layers refuses it.
  static func inputChannels(of arch: WeightsManifest.Architecture) -> [Int] {
    var counts = [3]
    var channels = arch.stemChannels
    for spec in arch.blocks {
      let expanded = channels &* spec.expand
      if spec.expand != 1 { counts.append(channels) }
      counts += [expanded, expanded]
      channels = spec.outputChannels
    }
    counts.append(channels)
    return counts
  }

  /// TensorFlow's "SAME" rule: the output size and the padding before (the odd pixel goes after).
  static func samePadding(input: Int, kernel: Int, stride: Int) -> (output: Int, before: Int) {
    let output = (input + stride - 1) / stride
    return (output, max((output - 1) * stride + kernel - input, 0) / 2)
  }
}
