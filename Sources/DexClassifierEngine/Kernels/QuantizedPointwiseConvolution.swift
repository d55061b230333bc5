/// A 1×1 convolution computed in 16-bit integers with 32-bit accumulators: the same layer as
/// ``PointwiseConvolution``, about twice as fast on x86-64.
///
/// Why it exists: SwiftPM builds for the x86-64 baseline (SSE2: no FMA, 128-bit vectors), where a
/// float multiply-add is two instructions and the 1×1 convolutions top out near eight
/// multiply-adds per cycle. `pmaddwd`, also in the baseline, does eight 16-bit multiplies and
/// four pairwise adds in one instruction, which doubles that ceiling.
///
/// The arithmetic, chosen so that the result stays within 0.02 of the float network's logits:
/// - Activations are quantized per call with one scale for the whole tensor: `x ≈ sx · q`,
///   `|q| ≤ 4095` (``activationLimit``), `sx = max|x| / 4095`.
/// - Weights are quantized per output channel, `w ≈ sw[o] · v`, with as many bits as the
///   no-overflow proof allows (at most 15): for every output channel,
///   `Σᵢ |v[i][o]| · 4095 < 2³¹`, so no sum of products can wrap, whatever the input.
/// - `output[p][o] = activation(bias[o] + sx · sw[o] · Σᵢ q[p][i] · v[i][o] (+ residual))`.
///
/// Input channels are taken in pairs (`pmaddwd` adds adjacent products); an odd count is padded
/// with a zero channel. Weights are packed into panels of eight output channels:
/// `panel[pair][0..<16] = (v[2j][o0], v[2j+1][o0], …, v[2j][o7], v[2j+1][o7])`, so one input pair
/// broadcast against two registers of a panel gives eight outputs. The dense micro-kernel keeps
/// a 6 pixels × 8 channels tile of accumulators in registers and reads its input in a tiled
/// layout with each pair already broadcast (see ``tiledCount(pixels:)``); a projection, whose
/// input is mostly zeros, skips the zeros instead (see
/// ``applySkippingZeros(quantized:inputScale:pixels:into:residual:threads:)``). A wide
/// projection keeps one 16-byte row per input channel per panel instead of pairs (see
/// ``WeightLayout``).
struct QuantizedPointwiseConvolution: Sendable {
  /// Input channels.
  let inputChannels: Int
  /// Input channels rounded up to even: the row length of the quantized input.
  let pairedChannels: Int
  /// Output channels, a multiple of 8.
  let outputChannels: Int
  /// Packed weights, see the type's description and ``layout``.
  let packedWeights: [Int16]
  /// How ``packedWeights`` is laid out, fixed by the input the layer was built for.
  let layout: WeightLayout
  /// Per output channel, the float value of one weight step (`sw`).
  let weightScales: [Float]
  /// One bias per output channel (BatchNorm folded in).
  let bias: [Float]
  /// Whether ReLU6 follows.
  let clampsToReLU6: Bool

  /// The largest quantized activation magnitude.
  static let activationLimit: Float = 4095

  /// The input scale for an input known to lie in `0...6` (a ReLU6 output): its producer can
  /// write `round(x / reluInputScale)` directly (see ``DepthwiseConvolution/Destination``)
  /// instead of this layer measuring and quantizing a float copy.
  static let reluInputScale: Float = 6 / activationLimit

  /// The layouts of ``packedWeights``.
  enum WeightLayout: Sendable {
    /// Panels of eight output channels holding input channel pairs interleaved:
    /// `panel[pair][0..<16] = (v[2j][o0], v[2j+1][o0], …, v[2j][o7], v[2j+1][o7])`, what
    /// `pmaddwd` reads as is. The dense kernel and the pair-skipping projection use it.
    case channelPairs
    /// Panels of eight output channels holding one row per input channel:
    /// `panel[i][0..<8] = (v[i][o0], …, v[i][o7])`. The channel-skipping projection pairs any
    /// two listed channels by interleaving their rows in registers (see
    /// ``applySkippingZeros(quantized:inputScale:pixels:into:residual:threads:)``).
    case channelRows
  }

  /// The fewest output channels for which a projection skips single zero channels rather than
  /// zero channel pairs. Interleaving two weight rows costs a few instructions per pair of
  /// channels and panel pair, which a wide layer amortises over more panels than the listing
  /// costs; below this the pair-skipping kernel is faster (measured in alternating passes).
  static let channelSkippingMinimumOutputs = 80

  /// Quantizes and packs row-major `[inputChannels][outputChannels]` weights; `nil` if the sizes
  /// disagree or a weight is not finite. `sparseInput` builds the layer for
  /// ``applySkippingZeros(quantized:inputScale:pixels:into:residual:threads:)`` (a projection)
  /// rather than for the dense entries; a wide one then gets the ``WeightLayout/channelRows``
  /// layout, which only that entry reads.
  init?(
    weights: [Float], bias: [Float], inputChannels: Int, outputChannels: Int, relu6: Bool,
    sparseInput: Bool = false
  ) {
    guard inputChannels > 0, outputChannels > 0, outputChannels % 8 == 0,
      weights.count == inputChannels * outputChannels, bias.count == outputChannels,
      weights.allSatisfy(\.isFinite)
    else { return nil }
    let cin = inputChannels
    let cout = outputChannels
    let paired = (cin + 1) / 2 * 2
    var quantized = [Int16](repeating: 0, count: paired * cout)
    var scales = [Float](repeating: 0, count: cout)
    for o in 0..<cout {
      var largest: Float = 0
      var total: Float = 0
      for i in 0..<cin {
        let magnitude = abs(weights[i * cout + o])
        largest = max(largest, magnitude)
        total += magnitude
      }
      guard largest > 0 else { continue }  // an all-zero column stays zero with scale 0
      let budget = Int64(Int32.max) / Int64(Self.activationLimit)
      // Σ|v| ≤ step · (total / largest) + cin / 2 after rounding; start from the largest step
      // that bound allows and shrink until the exact sum fits.
      var steps = min(
        32767, Int((Double(budget) - Double(cin) / 2) * Double(largest) / Double(total)))
      while steps > 0 {
        let scale = largest / Float(steps)
        var sum: Int64 = 0
        for i in 0..<cin {
          let v = (weights[i * cout + o] / scale).rounded(.toNearestOrEven)
          let q = Int16(max(-32767, min(32767, v)))
          quantized[i * cout + o] = q
          sum += Int64(abs(Int32(q)))
        }
        if sum <= budget {
          scales[o] = scale
          break
        }
        steps -= max(1, steps / 64)
      }
      guard steps > 0 else { return nil }
    }
    let layout: WeightLayout =
      sparseInput && cout >= Self.channelSkippingMinimumOutputs ? .channelRows : .channelPairs
    var packed = [Int16](repeating: 0, count: paired * cout)
    switch layout {
    case .channelPairs:
      let pairs = paired / 2
      for panel in 0..<(cout / 8) {
        for pair in 0..<pairs {
          for lane in 0..<8 {
            let o = panel * 8 + lane
            let base = ((panel * pairs + pair) * 8 + lane) * 2
            for half in 0..<2 {
              let i = pair * 2 + half
              packed[base + half] = i < cin ? quantized[i * cout + o] : 0
            }
          }
        }
      }
    case .channelRows:
      // The padding channel of an odd count keeps a zero row.
      for panel in 0..<(cout / 8) {
        for i in 0..<cin {
          for lane in 0..<8 {
            packed[(panel * paired + i) * 8 + lane] = quantized[i * cout + panel * 8 + lane]
          }
        }
      }
    }
    self.inputChannels = cin
    self.pairedChannels = paired
    self.outputChannels = cout
    self.packedWeights = packed
    self.layout = layout
    self.weightScales = scales
    self.bias = bias
    self.clampsToReLU6 = relu6
  }

  /// The number of `Int16` scratch values ``apply(_:pixels:into:residual:scratch:threads:)``
  /// needs for `pixels` input rows: the input in the tiled layout.
  func scratchCount(pixels: Int) -> Int { tiledCount(pixels: pixels) }

  /// Runs the convolution on `pixels` rows of `input` into `output`, optionally adding `residual`
  /// (same shape as `output`) after the bias. `scratch` holds ``scratchCount(pixels:)`` values
  /// for the quantized input; `threads > 1` splits the pixels.
  func apply(
    _ input: UnsafePointer<Float>, pixels: Int, into output: UnsafeMutablePointer<Float>,
    residual: UnsafePointer<Float>? = nil, scratch: UnsafeMutablePointer<Int16>, threads: Int = 1
  ) {
    let inputScale = quantize(input, pixels: pixels, into: scratch, threads: threads)
    apply(
      tiles: scratch, inputScale: inputScale, pixels: pixels, into: output, residual: residual,
      threads: threads)
  }

  /// Runs `body` with pointers to the packed weights, the weight scales and the bias.
  @inline(__always)
  func withParameters(
    _ body: (UnsafePointer<Int16>, UnsafePointer<Float>, UnsafePointer<Float>) -> Void
  ) {
    packedWeights.withUnsafeBufferPointer { w in
      weightScales.withUnsafeBufferPointer { s in
        bias.withUnsafeBufferPointer { b in
          guard let w = w.baseAddress, let s = s.baseAddress, let b = b.baseAddress else { return }
          body(w, s, b)
        }
      }
    }
  }

  /// `max |x|` over `count` values (0 for none).
  static func largestMagnitude(_ x: UnsafePointer<Float>, count: Int) -> Float {
    var a = Float4Lanes(repeating: 0)
    var b = Float4Lanes(repeating: 0)
    var i = 0
    while i + 8 <= count {
      a = Float4Lanes(loading: x + i).maxMagnitude(a)
      b = Float4Lanes(loading: x + i + 4).maxMagnitude(b)
      i += 8
    }
    var largest = a.maxMagnitude(b).maxElement
    while i < count {
      largest = max(largest, abs(x[i]))
      i += 1
    }
    return largest.isFinite ? largest : 0
  }

  /// Turns one pixel's eight accumulators back into floats: scale, bias, residual, ReLU6.
  struct Epilogue {
    var scale0: Float4Lanes
    var scale1: Float4Lanes
    var bias0: Float4Lanes
    var bias1: Float4Lanes
    var relu6: Bool

    /// The epilogue of output channels `c..<c+8`: weight scales times the input scale, bias.
    @inline(__always)
    init(
      channel c: Int, scales: UnsafePointer<Float>, inputScale sx: Float4Lanes,
      bias: UnsafePointer<Float>, relu6: Bool
    ) {
      scale0 = Float4Lanes(loading: scales + c) * sx
      scale1 = Float4Lanes(loading: scales + c + 4) * sx
      bias0 = Float4Lanes(loading: bias + c)
      bias1 = Float4Lanes(loading: bias + c + 4)
      self.relu6 = relu6
    }

    @inline(__always)
    func store(
      _ a0: Int32Lanes, _ a1: Int32Lanes, to out: UnsafeMutablePointer<Float>,
      residual: UnsafePointer<Float>?
    ) {
      var v0 = a0.floats * scale0 + bias0
      var v1 = a1.floats * scale1 + bias1
      if let r = residual {
        v0 = v0 + Float4Lanes(loading: r)
        v1 = v1 + Float4Lanes(loading: r + 4)
      }
      if relu6 {
        v0 = Self.reLU6(v0)
        v1 = Self.reLU6(v1)
      }
      v0.store(to: out)
      v1.store(to: out + 4)
    }

    /// ``store(_:_:to:residual:)`` for a layer with ReLU6 and no residual, without the tests.
    @inline(__always)
    func storeReLU6(_ a0: Int32Lanes, _ a1: Int32Lanes, to out: UnsafeMutablePointer<Float>) {
      Self.reLU6(a0.floats * scale0 + bias0).store(to: out)
      Self.reLU6(a1.floats * scale1 + bias1).store(to: out + 4)
    }

    /// Each lane clamped to `0...6`.
    @inline(__always)
    private static func reLU6(_ v: Float4Lanes) -> Float4Lanes {
      v.clamped(Float4Lanes(repeating: 0), Float4Lanes(repeating: 6))
    }
  }
}
