import Foundation

/// The network's portable path: the pure-Swift kernels of `Kernels/`, on every platform, and the
/// oracle that the XNNPACK backend is tested against.
///
/// Immutable once built; each forward pass works in a workspace of its own from ``workspaces``.
struct PortableNetwork: Sendable {
  let classCount: Int
  let arithmetic: EfficientNetLite0.Arithmetic
  private let stem: StemLayer
  private let blocks: [EfficientNetLite0.MBConvBlock]
  private let head: PointwiseLayer
  private let classifierWeights: [Float]
  private let classifierBias: [Float]
  private let workspaces: WorkspacePool

  /// Builds the layers of `arch` from `store` (shapes already checked against the manifest).
  init(
    architecture arch: WeightsManifest.Architecture, store: TensorStore,
    arithmetic: EfficientNetLite0.Arithmetic
  ) throws(NetworkError) {
    func pointwise(
      _ name: String, _ cin: Int, _ cout: Int, relu: Bool, sparseInput: Bool = false
    ) throws(NetworkError)
      -> PointwiseLayer
    {
      let w = try store.tensor("\(name).weight", shape: [cin, cout])
      let b = try store.tensor("\(name).bias", shape: [cout])
      guard
        let layer = PointwiseLayer(
          arithmetic: arithmetic, weights: w, bias: b, inputChannels: cin, outputChannels: cout,
          relu6: relu, sparseInput: sparseInput)
      else { throw .invalidWeights("\(name): unsupported channel count \(cout)") }
      return layer
    }

    let stemW = try store.tensor("stem.weight", shape: [3, 3, 3, arch.stemChannels])
    let stemB = try store.tensor("stem.bias", shape: [arch.stemChannels])
    guard
      let stem = StemLayer(
        arithmetic: arithmetic, weights: stemW, bias: stemB, outputChannels: arch.stemChannels,
        kernel: 3, stride: 2)
    else { throw .invalidWeights("stem: unsupported channel count or a weight that is not finite") }

    var blocks: [EfficientNetLite0.MBConvBlock] = []
    var channels = arch.stemChannels
    var side = (EfficientNetLite0.inputSize + 1) / 2
    var sizes = InferenceWorkspace.Sizes(
      activations: side * side * arch.stemChannels,
      scratch: stem.scratchCount(
        height: EfficientNetLite0.inputSize, width: EfficientNetLite0.inputSize))
    var bandedInputs: [(expand: QuantizedPointwiseConvolution, side: Int, expanded: Int)] = []
    for (i, spec) in arch.blocks.enumerated() {
      guard spec.inputChannels == channels, (1...16).contains(spec.expand),
        [3, 5, 7].contains(spec.kernel), [1, 2].contains(spec.stride),
        (8...8192).contains(spec.outputChannels)
      else { throw .invalidManifest("block \(i) does not chain or has unsupported parameters") }
      let expanded = channels * spec.expand
      let expand: PointwiseLayer? =
        spec.expand == 1 ? nil : try pointwise("blocks.\(i).expand", channels, expanded, relu: true)
      sizes.scratch = max(sizes.scratch, expand?.scratchCount(pixels: side * side) ?? 0)
      let dwW = try store.tensor(
        "blocks.\(i).depthwise.weight", shape: [spec.kernel, spec.kernel, expanded])
      let dwB = try store.tensor("blocks.\(i).depthwise.bias", shape: [expanded])
      guard
        let depthwise = DepthwiseConvolution(
          weights: dwW, bias: dwB, channels: expanded, kernel: spec.kernel, stride: spec.stride)
      else { throw .invalidWeights("block \(i): unsupported depthwise channel count") }
      let project = try pointwise(
        "blocks.\(i).project", expanded, spec.outputChannels, relu: false, sparseInput: true)
      let block = EfficientNetLite0.MBConvBlock(
        expand: expand, depthwise: depthwise, project: project,
        hasResidual: spec.stride == 1 && spec.inputChannels == spec.outputChannels)
      if let (expand, _) = block.bandLayers {
        sizes.band = max(sizes.band, block.bandCount(width: side))
        bandedInputs.append((expand, side, expanded))
      }
      sizes.activations = max(sizes.activations, side * side * expanded)
      side = (side + spec.stride - 1) / spec.stride
      // The depthwise output, quantized in compact rows for the projection.
      sizes.scratch = max(sizes.scratch, side * side * ((expanded + 1) / 2 * 2))
      sizes.activations = max(sizes.activations, side * side * max(expanded, spec.outputChannels))
      blocks.append(block)
      channels = spec.outputChannels
    }
    // A band holds whole input rows of the expanded tensor, so it adds at most that many rows
    // of a block's input at once.
    for (expand, side, expanded) in bandedInputs {
      let rows = min(side, sizes.band / (side * expanded))
      sizes.blockInput = max(sizes.blockInput, expand.scratchCount(pixels: rows * side))
    }
    let head = try pointwise("head", channels, arch.headChannels, relu: true)
    sizes.activations = max(sizes.activations, side * side * arch.headChannels)
    sizes.scratch = max(sizes.scratch, head.scratchCount(pixels: side * side))
    self.classifierWeights = try store.tensor(
      "classifier.weight", shape: [arch.headChannels, arch.classes])
    self.classifierBias = try store.tensor("classifier.bias", shape: [arch.classes])
    self.stem = stem
    self.blocks = blocks
    self.head = head
    self.classCount = arch.classes
    self.arithmetic = arithmetic
    self.workspaces = WorkspacePool(sizes: sizes)
  }

  /// The logits of a checked `224 × 224 × 3` input.
  func logits(_ input: [Float], threads: Int) throws(NetworkError) -> [Float] {
    try workspaces.withWorkspace { (workspace) throws(NetworkError) -> [Float] in
      try forward(input, size: EfficientNetLite0.inputSize, workspace: workspace, threads: threads)
    }
  }

  /// The forward pass proper, on `workspace`'s buffers.
  private func forward(
    _ input: [Float], size: Int, workspace: InferenceWorkspace, threads: Int
  ) throws(NetworkError) -> [Float] {
    let buffers = workspace.activations
    let (a, b, c, d) = (buffers[0], buffers[1], buffers[2], buffers[3])
    let scratch = workspace.scratch
    var current = a
    var spare = d
    var (height, width) = input.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return (0, 0) }
      return stem.apply(
        base, height: size, width: size, into: current, scratch: scratch, threads: threads)
    }
    for block in blocks {
      if Task.isCancelled { throw .cancelled }
      let residual = block.hasResidual ? UnsafePointer(current) : nil
      if let (expand, project) = block.bandLayers,
        threads == 1 || block.runsInParallelBands(height: height, workers: threads)
      {
        // Band by band; with several threads, each takes a range of output rows.
        let input = UnsafePointer(current)
        let (h, w) = (height, width)
        let (oh, _) = DepthwiseConvolution.samePadding(
          input: h, kernel: block.depthwise.kernel, stride: block.depthwise.stride)
        let (ow, _) = DepthwiseConvolution.samePadding(
          input: w, kernel: block.depthwise.kernel, stride: block.depthwise.stride)
        let quantization = expand.quantization(of: input, pixels: h * w)
        workspace.reserveBandWorkers(chunkCount(of: oh, threads: threads, multiple: 1))
        let (bands, blockInputs) = (workspace.bands, workspace.blockInputs)
        let output = spare
        forEachChunk(of: oh, threads: threads, multiple: 1) { worker, rows in
          block.applyInBands(
            expand: expand, project: project, input, height: h, width: w, outRows: rows,
            quantization: quantization, quantizedInput: blockInputs[worker], band: bands[worker],
            bandCapacity: workspace.bandCount, quantizedOutput: scratch, into: output,
            residual: residual)
        }
        (height, width) = (oh, ow)
        swap(&current, &spare)
        continue
      }
      let pixels = height * width
      var expanded = UnsafePointer(current)
      if let expand = block.expand {
        expand.apply(
          UnsafePointer(current), pixels: pixels, into: b, scratch: scratch, threads: threads)
        expanded = UnsafePointer(b)
      }
      if case .int16(let project) = block.project {
        // The depthwise output is a ReLU6 output: it is written already quantized for the
        // projection, with the fixed 0...6 scale.
        (height, width) = block.depthwise.apply(
          expanded, height: height, width: width,
          into: .quantizedReLU6(scratch),
          threads: threads)
        project.applySkippingZeros(
          quantized: scratch, inputScale: QuantizedPointwiseConvolution.reluInputScale,
          pixels: height * width, into: spare, residual: residual, threads: threads)
      } else {
        (height, width) = block.depthwise.apply(
          expanded, height: height, width: width, into: .floats(c), threads: threads)
        block.project.apply(
          UnsafePointer(c), pixels: height * width, into: spare, residual: residual,
          scratch: scratch, threads: threads)
      }
      swap(&current, &spare)
    }
    let pixels = height * width
    head.apply(UnsafePointer(current), pixels: pixels, into: b, scratch: scratch, threads: threads)
    return classify(pooling: UnsafePointer(b), pixels: pixels, threads: threads)
  }

  /// Global average pool of the head's output followed by the fully connected layer; `threads`
  /// split the classes (each class's sum keeps its order, so the bits do not change).
  private func classify(
    pooling features: UnsafePointer<Float>, pixels: Int, threads: Int
  ) -> [Float] {
    let channels = head.outputChannels
    var pooled = [Float](repeating: 0, count: channels)
    for p in 0..<pixels {
      let row = features + p * channels
      for ch in 0..<channels { pooled[ch] += row[ch] }
    }
    let scale = 1 / Float(max(pixels, 1))
    for ch in 0..<channels { pooled[ch] *= scale }
    var logits = classifierBias
    let classes = classCount
    logits.withUnsafeMutableBufferPointer { out in
      classifierWeights.withUnsafeBufferPointer { w in
        guard let out = out.baseAddress, let w = w.baseAddress else { return }
        pooled.withUnsafeBufferPointer { pooled in
          forEachChunk(of: classes, threads: threads, multiple: 16) { range in
            // Each thread sums into a buffer of its own and writes its classes once: summing in
            // `out` would pass the cache line two ranges share between the cores 1280 times.
            withUnsafeTemporaryAllocation(of: Float.self, capacity: range.count) { sums in
              guard let sums = sums.baseAddress else { return }
              let first = range.lowerBound
              sums.initialize(from: out + first, count: range.count)
              for i in 0..<channels {
                let x = pooled[i]
                guard x != 0 else { continue }
                let row = w + (i * classes + first)
                for o in 0..<range.count { sums[o] += row[o] * x }
              }
              (out + first).update(from: sums, count: range.count)
            }
          }
        }
      }
    }
    return logits
  }
}
