import Foundation

extension EfficientNetLite0.MBConvBlock {
  /// The band buffer aimed for, in floats (512 KB): with the rows of the block's input it adds
  /// (tiled int16, about 170 KB at most), its quantized output and the layers' weights it stays
  /// within a core's L2 cache (1 MB here). Half that measured 1–2 % slower (more, shorter
  /// bands), a quarter 12 % slower.
  static let bandBudget = 131_072

  /// The block's int16 expansion and projection when the block can run band by band (int16
  /// arithmetic and an expansion), else `nil`.
  var bandLayers: (expand: QuantizedPointwiseConvolution, project: QuantizedPointwiseConvolution)? {
    guard case .int16(let expand)? = expand, case .int16(let project) = project else {
      return nil
    }
    return (expand, project)
  }

  /// Whether `workers` band workers, each taking a contiguous range of output rows, beat the
  /// layer-by-layer path for an input `height` rows high.
  ///
  /// Each range recomputes the expanded rows it shares with its neighbour (`kernel - stride` of
  /// them per boundary), so splitting pays only while that extra work stays below what the
  /// layer-by-layer path costs instead: four fork-joins (about 11 µs each here) and whole-tensor
  /// passes that leave the cache between layers. On two threads that holds up to about 60 % of
  /// a range's rows: letting the 14×14 blocks (two or four shared rows in seven) and the last
  /// stride-2 block run in bands made a two-thread pass about 3 % faster than a 15 % limit
  /// (paired passes, `Benchmarks/DexImaging-classifier/ab.py --threads 2`: 0.966 cat, 0.971
  /// bird), and a 100 % limit measured no better (0.995).
  func runsInParallelBands(height: Int, workers: Int) -> Bool {
    let s = depthwise.stride
    let outputRows = (height + s - 1) / s
    let perWorker = outputRows / max(workers, 1)
    return perWorker > 0 && (depthwise.kernel - s) * 100 <= Self.bandRecomputeLimit * perWorker * s
  }

  /// The largest share of a band worker's rows, in percent, that it may recompute for its
  /// neighbour (see ``runsInParallelBands(height:workers:)``).
  static let bandRecomputeLimit = 60

  /// The band buffer this block needs for an input `width` wide: the budget, or `kernel` rows
  /// of the expanded tensor if that is more.
  func bandCount(width: Int) -> Int {
    max(Self.bandBudget, depthwise.kernel * width * depthwise.channels)
  }

  /// Runs expansion, depthwise and projection a band of output rows at a time, on the calling
  /// thread, and returns the output size.
  ///
  /// Why: the expanded tensor is six times wider than the block's input (4.8 MB for the first
  /// stride-2 block, where a core's L2 cache holds 1 MB). Computed whole, it is written to
  /// memory by the expansion and read back by the depthwise convolution; a band of it stays in
  /// cache between the two. The arithmetic is exactly that of the layer-by-layer path: the
  /// input is quantized once for the whole tensor, every output pixel sees the same operations
  /// in the same order, and the projection's input has the fixed ReLU6 scale.
  ///
  /// - `outRows`: the output rows to compute (all of them by default); several workers can
  ///   each take a range of rows, with buffers of their own except `quantizedOutput`, `output`
  ///   and the input.
  /// - `quantization`: the input's whole-tensor quantization
  ///   (``QuantizedPointwiseConvolution/quantization(of:pixels:)``); measured here when `nil`.
  /// - `quantizedInput`: room for the rows a band adds, quantized in the expansion's tiled
  ///   layout: ``QuantizedPointwiseConvolution/tiledCount(pixels:)`` of
  ///   `min(height, bandCapacity / (width · expanded channels)) · width` pixels (a band holds
  ///   whole expanded input rows, so it never adds more).
  /// - `band`: `bandCapacity` floats, at least ``bandCount(width:)``.
  /// - `quantizedOutput`: room for the whole depthwise output, quantized.
  @discardableResult
  func applyInBands(
    expand: QuantizedPointwiseConvolution, project: QuantizedPointwiseConvolution,
    _ input: UnsafePointer<Float>, height: Int, width: Int, outRows: Range<Int>? = nil,
    quantization: (multiplier: Float, scale: Float)? = nil,
    quantizedInput: UnsafeMutablePointer<Int16>, band: UnsafeMutablePointer<Float>,
    bandCapacity: Int, quantizedOutput: UnsafeMutablePointer<Int16>,
    into output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?
  ) -> (height: Int, width: Int) {
    let k = depthwise.kernel
    let s = depthwise.stride
    let expanded = depthwise.channels
    let (oh, padTop) = DepthwiseConvolution.samePadding(input: height, kernel: k, stride: s)
    let (ow, _) = DepthwiseConvolution.samePadding(input: width, kernel: k, stride: s)
    let rowCount = width * expanded
    let outputRow = ow * project.outputChannels
    // The most output rows whose input rows, (rows - 1)·s + k of them, fit in the band.
    let bandRows = max(1, (bandCapacity / rowCount - k) / s + 1)
    // One scale for the whole input, as the layer-by-layer path uses; each band quantizes the
    // rows it adds into the tiled buffer.
    let (multiplier, inputScale) =
      quantization ?? expand.quantization(of: input, pixels: height * width)
    let rows = outRows ?? 0..<oh
    var held = 0..<0  // input rows currently in `band`, from its start
    var first = rows.lowerBound
    while first < rows.upperBound {
      let last = min(rows.upperBound, first + bandRows)
      let needed = max(0, first * s - padTop)..<min(height, (last - 1) * s - padTop + k)
      // Rows shared with the previous band move to the front; the rest are computed.
      var computeFrom = needed.lowerBound
      if held.contains(needed.lowerBound) {
        let kept = held.upperBound - needed.lowerBound
        memmove(
          band, band + (needed.lowerBound - held.lowerBound) * rowCount,
          kept * rowCount * MemoryLayout<Float>.stride)
        computeFrom = held.upperBound
      }
      if computeFrom < needed.upperBound {
        let pixels = (needed.upperBound - computeFrom) * width
        expand.quantize(
          input + computeFrom * width * expand.inputChannels, rows: 0..<pixels, of: pixels,
          multiplier: multiplier, into: quantizedInput)
        expand.apply(
          tiles: quantizedInput, inputScale: inputScale, pixels: pixels,
          into: band + (computeFrom - needed.lowerBound) * rowCount)
      }
      held = needed
      depthwise.apply(
        band: band, firstRow: needed.lowerBound, height: height, width: width,
        outRows: first..<last, into: .quantizedReLU6(quantizedOutput))
      project.applySkippingZeros(
        quantized: quantizedOutput + first * ow * expanded,
        inputScale: QuantizedPointwiseConvolution.reluInputScale, pixels: (last - first) * ow,
        into: output + first * outputRow, residual: residual.map { $0 + first * outputRow })
      first = last
    }
    return (oh, ow)
  }
}
