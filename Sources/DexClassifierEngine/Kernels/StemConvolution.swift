/// The network's first layer: a full 3×3 stride-2 convolution from 3 input channels, fused with
/// bias and ReLU6, TensorFlow "SAME" padding.
///
/// With only three input channels a matrix product would waste most of its work, so each output
/// pixel accumulates its 27 taps directly into its output channels, 32 at a time: eight
/// independent accumulator chains share each input value, instead of two chains waiting on each
/// other's additions.
struct StemConvolution: Sendable {
  /// Channels, kernel and stride.
  let shape: StemShape
  /// Weights laid out `[kernel][kernel][3][paddedChannels]`, zero past `outputChannels`.
  let weights: [Float]
  /// Bias per output channel, zero past `outputChannels`.
  let bias: [Float]

  /// Creates the layer from weights laid out `[kernel][kernel][3][outputChannels]` and a bias per
  /// output channel; `nil` if their counts are not `shape`'s.
  init?(_ shape: StemShape, weights: [Float], bias: [Float]) {
    guard shape.accepts(weights: weights, bias: bias) else { return nil }
    self.shape = shape
    let (co, padded) = (shape.outputChannels, shape.paddedChannels)
    var w = [Float](repeating: 0, count: shape.kernel * shape.kernel * 3 * padded)
    for row in 0..<(shape.kernel * shape.kernel * 3) {
      for o in 0..<co {
        w[row * padded + o] = weights[row * co + o]
      }
    }
    self.weights = w
    self.bias = shape.paddedBias(bias)
  }

  /// Applies the layer to an `height × width × 3` input; returns the output size.
  /// `threads > 1` splits the output rows.
  @discardableResult
  func apply(
    _ input: UnsafePointer<Float>, height: Int, width: Int,
    into output: UnsafeMutablePointer<Float>,
    threads: Int = 1
  ) -> (height: Int, width: Int) {
    let (oh, ow, padTop, padLeft) = shape.output(height: height, width: width)
    let co = shape.outputChannels
    let cp = shape.paddedChannels
    let k = shape.kernel
    let stride = shape.stride
    weights.withUnsafeBufferPointer { wb in
      bias.withUnsafeBufferPointer { bb in
        guard let w = wb.baseAddress, let b = bb.baseAddress else { return }
        forEachChunk(of: oh, threads: threads, multiple: 1) { rows in
          for oy in rows {
            let iy0 = oy &* stride &- padTop
            // The taps that land inside the image: padding is skipped by clipping the ranges,
            // so the loops below carry no bounds tests (the sums keep the order ky, kx, channel).
            let kyStart = max(0, -iy0)
            let kyEnd = min(k, height &- iy0)
            for ox in 0..<ow {
              let ix0 = ox &* stride &- padLeft
              let kxStart = max(0, -ix0)
              let kxEnd = min(k, width &- ix0)
              let out = output + (oy &* ow &+ ox) &* co
              var group = 0
              while group < co {
                var a0 = FloatOctet(bias: b + group)
                var a1 = FloatOctet(bias: b + (group &+ 8))
                var a2 = FloatOctet(bias: b + (group &+ 16))
                var a3 = FloatOctet(bias: b + (group &+ 24))
                var ky = kyStart
                while ky < kyEnd {
                  var px = input + ((iy0 &+ ky) &* width &+ ix0 &+ kxStart) &* 3
                  var wt = w + ((ky &* k &+ kxStart) &* 3 &* cp &+ group)
                  var kx = kxStart
                  while kx < kxEnd {
                    for channel in 0..<3 {
                      let value = px[channel]
                      a0.accumulate(wt, value)
                      a1.accumulate(wt + 8, value)
                      a2.accumulate(wt + 16, value)
                      a3.accumulate(wt + 24, value)
                      wt += cp
                    }
                    px += 3
                    kx &+= 1
                  }
                  ky &+= 1
                }
                // The last pass over a channel count that is not a multiple of 32 computes the
                // zero-weight padding too, and stores only the real channels.
                let left = co &- group
                a0.store(out + group, residual: nil, relu6: true)
                if left > 8 { a1.store(out + (group &+ 8), residual: nil, relu6: true) }
                if left > 16 { a2.store(out + (group &+ 16), residual: nil, relu6: true) }
                if left > 24 { a3.store(out + (group &+ 24), residual: nil, relu6: true) }
                group &+= 32
              }
            }
          }
        }
      }
    }
    return (oh, ow)
  }
}
