/// The network's first layer (see ``StemConvolution``) computed in 16-bit integers with 32-bit
/// accumulators: the stem of ``EfficientNetLite0/Arithmetic/int16``.
///
/// Why it exists: the float stem issues a load, a multiply and an add for every four
/// multiply-adds, about 5 % of a pass's instructions. `pmaddwd` does eight in one instruction.
/// The stem's input has only three channels, so the pairs `pmaddwd` adds are taken along a
/// kernel row: a row of a patch is `kernel · 3` neighbouring values of one input row (9 for a
/// 3×3 kernel), read as pairs straight from the quantized input, the last pair of an odd row
/// completed by the next value with a zero weight.
///
/// The arithmetic is that of ``QuantizedPointwiseConvolution`` (which quantizes the weights, with
/// its no-overflow proof): the input is quantized with one scale for the whole image,
/// `x ≈ sx · q`, `|q| ≤` ``QuantizedPointwiseConvolution/activationLimit``, into a copy with the
/// padding written as zeros, so every output pixel runs the same loop with no clipping (a zero
/// adds nothing to an integer sum); the weights per output channel, `w ≈ sw[o] · v`.
struct QuantizedStemConvolution: Sendable {
  /// Channels, kernel and stride.
  let shape: StemShape
  /// Value pairs per kernel row: `kernel · 3` rounded up to even, halved.
  let rowPairs: Int
  /// Per pair of a patch (`kernel · rowPairs` of them, row by row) and per panel of eight output
  /// channels, two registers: the pair's two weights for outputs 0–3 and for outputs 4–7,
  /// interleaved as `pmaddwd` reads them. Zero past ``StemShape/outputChannels``.
  let packedWeights: [SIMD8<Int16>]
  /// Per output channel (``StemShape/paddedChannels`` of them), the float value of one weight
  /// step.
  let weightScales: [Float]
  /// Bias per output channel, zero past ``StemShape/outputChannels``.
  let bias: [Float]

  /// Creates the layer from weights laid out `[kernel][kernel][3][outputChannels]` and a bias per
  /// output channel (as ``StemConvolution``); `nil` if their counts are not `shape`'s or a weight
  /// is not finite.
  init?(_ shape: StemShape, weights: [Float], bias: [Float]) {
    guard shape.accepts(weights: weights, bias: bias) else { return nil }
    let (outputChannels, kernel) = (shape.outputChannels, shape.kernel)
    let padded = shape.paddedChannels
    let rowValues = kernel * 3
    let rowPairs = (rowValues + 1) / 2
    // The patch as the input of a 1×1 convolution: each kernel row's values, then a zero-weight
    // value when the row has an odd count.
    let patchChannels = kernel * rowPairs * 2
    var patchWeights = [Float](repeating: 0, count: patchChannels * padded)
    for ky in 0..<kernel {
      for v in 0..<rowValues {
        for o in 0..<outputChannels {
          patchWeights[(ky * rowPairs * 2 + v) * padded + o] =
            weights[(ky * rowValues + v) * outputChannels + o]
        }
      }
    }
    let paddedBias = shape.paddedBias(bias)
    guard
      let patch = QuantizedPointwiseConvolution(
        weights: patchWeights, bias: paddedBias, inputChannels: patchChannels,
        outputChannels: padded, relu6: true)
    else { return nil }
    // From the 1×1 layer's panel-major layout (`[panel][pair][16]`) to pair-major registers.
    let pairs = patchChannels / 2
    let panels = padded / 8
    var packed = [SIMD8<Int16>](repeating: .zero, count: pairs * panels * 2)
    for pair in 0..<pairs {
      for panel in 0..<panels {
        for half in 0..<2 {
          var register = SIMD8<Int16>.zero
          for lane in 0..<8 {
            register[lane] = patch.packedWeights[(panel * pairs + pair) * 16 + half * 8 + lane]
          }
          packed[(pair * panels + panel) * 2 + half] = register
        }
      }
    }
    self.shape = shape
    self.rowPairs = rowPairs
    self.packedWeights = packed
    self.weightScales = patch.weightScales
    self.bias = paddedBias
  }

  /// The quantized, zero-padded copy of an `height × width × 3` input: its rows and columns
  /// (pixels of three values), and where the image starts in it.
  struct PaddedInput {
    /// Rows: every row an output row's taps reach.
    var rows: Int
    /// Columns: every column an output pixel's taps reach, plus one, so that the last pair of
    /// an odd kernel row can always be read whole.
    var columns: Int
    /// Zero rows above the image.
    var top: Int
    /// Zero columns left of the image.
    var left: Int
  }

  /// The output size and the padded copy's shape for an input size, TF SAME.
  func geometry(height: Int, width: Int) -> (height: Int, width: Int, padded: PaddedInput) {
    let (oh, ow, top, left) = shape.output(height: height, width: width)
    let (kernel, stride) = (shape.kernel, shape.stride)
    let padded = PaddedInput(
      rows: (oh - 1) * stride + kernel, columns: (ow - 1) * stride + kernel + 1, top: top,
      left: left)
    return (oh, ow, padded)
  }

  /// The number of `Int16` scratch values ``apply(_:height:width:into:scratch:threads:)`` needs
  /// for an input size: the quantized, padded copy.
  func scratchCount(height: Int, width: Int) -> Int {
    let padded = geometry(height: height, width: width).padded
    return padded.rows * padded.columns * 3
  }

  /// Applies the layer to an `height × width × 3` input; returns the output size. `scratch`
  /// holds ``scratchCount(height:width:)`` values; `threads > 1` splits the rows.
  @discardableResult
  func apply(
    _ input: UnsafePointer<Float>, height: Int, width: Int,
    into output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Int16>,
    threads: Int = 1
  ) -> (height: Int, width: Int) {
    let (oh, ow, padded) = geometry(height: height, width: width)
    let largest = QuantizedPointwiseConvolution.largestMagnitude(input, count: height * width * 3)
    let limit = QuantizedPointwiseConvolution.activationLimit
    let (multiplier, inputScale) = largest > 0 ? (limit / largest, largest / limit) : (0, 0)
    forEachChunk(of: padded.rows, threads: threads, multiple: 1) { rows in
      quantize(
        input, height: height, width: width, rows: rows, padded: padded, multiplier: multiplier,
        into: scratch)
    }
    packedWeights.withUnsafeBufferPointer { w in
      weightScales.withUnsafeBufferPointer { s in
        bias.withUnsafeBufferPointer { b in
          guard let w = w.baseAddress, let s = s.baseAddress, let b = b.baseAddress else { return }
          forEachChunk(of: oh, threads: threads, multiple: 1) { rows in
            run(
              scratch, padded: padded, outRows: rows, outWidth: ow, weights: w, scales: s,
              inputScale: inputScale, bias: b, output: output)
          }
        }
      }
    }
    return (oh, ow)
  }

  /// Writes rows `rows` of the padded copy: `round(x · multiplier)` inside the image, zero
  /// outside.
  private func quantize(
    _ x: UnsafePointer<Float>, height: Int, width: Int, rows: Range<Int>, padded: PaddedInput,
    multiplier: Float, into q: UnsafeMutablePointer<Int16>
  ) {
    let limit = QuantizedPointwiseConvolution.activationLimit
    let m = Float4Lanes(repeating: multiplier)
    let rowValues = padded.columns &* 3
    // The image's columns that land in the copy, and the values before them.
    let firstColumn = max(0, -padded.left)
    let lastColumn = min(width, padded.columns &- padded.left)
    let before = max(0, padded.left) &* 3
    for row in rows {
      let destination = q + row &* rowValues
      let source = row &- padded.top
      guard source >= 0, source < height, firstColumn < lastColumn else {
        destination.initialize(repeating: 0, count: rowValues)
        continue
      }
      destination.initialize(repeating: 0, count: before)
      let count = (lastColumn &- firstColumn) &* 3
      let from = x + (source &* width &+ firstColumn) &* 3
      let to = destination + before
      var i = 0
      while i &+ 8 <= count {
        Int16Lanes(
          rounding: Float4Lanes(loading: from + i) * m, Float4Lanes(loading: from + i + 4) * m
        )
        .store(to: UnsafeMutableRawPointer(to + i))
        i &+= 8
      }
      while i < count {
        to[i] = Int16(max(-limit, min(limit, (from[i] * multiplier).rounded(.toNearestOrEven))))
        i &+= 1
      }
      (to + count).initialize(repeating: 0, count: rowValues &- before &- count)
    }
  }

  /// Computes output rows `outRows` from the padded copy `q`.
  @inline(__always)
  private func run(
    _ q: UnsafePointer<Int16>, padded: PaddedInput, outRows: Range<Int>, outWidth: Int,
    weights: UnsafePointer<SIMD8<Int16>>, scales: UnsafePointer<Float>, inputScale: Float,
    bias: UnsafePointer<Float>, output y: UnsafeMutablePointer<Float>
  ) {
    let co = shape.outputChannels
    let panels = shape.paddedChannels / 8
    let k = shape.kernel
    let s = shape.stride
    let pairsPerRow = rowPairs
    let rowBytes = padded.columns &* 6
    let sx = Float4Lanes(repeating: inputScale)
    // Each panel's scale (weight scales times the input scale) and bias, once per call.
    withUnsafeTemporaryAllocation(
      of: QuantizedPointwiseConvolution.Epilogue.self, capacity: panels
    ) { buffer in
      guard let epilogues = buffer.baseAddress else { return }
      for panel in 0..<panels {
        (epilogues + panel).initialize(
          to: QuantizedPointwiseConvolution.Epilogue(
            channel: panel &* 8, scales: scales, inputScale: sx, bias: bias, relu6: true))
      }
      for oy in outRows {
        for ox in 0..<outWidth {
          let patch = UnsafeRawPointer(q + ((oy &* s) &* padded.columns &+ ox &* s) &* 3)
          let out = y + (oy &* outWidth &+ ox) &* co
          var panel = 0
          while panel < panels {
            var a0 = Int32Lanes()
            var a1 = Int32Lanes()
            var a2 = Int32Lanes()
            var a3 = Int32Lanes()
            var a4 = Int32Lanes()
            var a5 = Int32Lanes()
            var a6 = Int32Lanes()
            var a7 = Int32Lanes()
            var wt = UnsafeRawPointer(weights + panel &* 2)
            for ky in 0..<k {
              let row = patch + ky &* rowBytes
              for j in 0..<pairsPerRow {
                let x = Int16Lanes(
                  repeatingPair: row.loadUnaligned(fromByteOffset: j &* 4, as: UInt32.self))
                a0 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt))
                a1 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt + 16))
                a2 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt + 32))
                a3 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt + 48))
                a4 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt + 64))
                a5 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt + 80))
                a6 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt + 96))
                a7 &+= x.multipliedPairwise(by: Int16Lanes(aligned: wt + 112))
                wt += panels &* 32
              }
            }
            // The last pass over a channel count that is not a multiple of 32 computes the
            // zero-weight padding too, and stores only the real channels.
            let c = panel &* 8
            @inline(__always) func store(_ n: Int, _ low: Int32Lanes, _ high: Int32Lanes) {
              let channel = c &+ n &* 8
              guard channel < co else { return }
              epilogues[panel &+ n].storeReLU6(low, high, to: out + channel)
            }
            store(0, a0, a1)
            store(1, a2, a3)
            store(2, a4, a5)
            store(3, a6, a7)
            panel &+= 4
          }
        }
      }
    }
  }
}
