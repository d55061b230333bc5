/// The network's first layer: a full 3×3 stride-2 convolution from 3 input channels, fused with
/// bias and ReLU6, TensorFlow "SAME" padding.
///
/// With only three input channels a matrix product would waste most of its work, so each output
/// pixel accumulates its 27 taps directly into its output channels, 32 at a time.
struct StemConvolution: Sendable {
  /// Output channels, a multiple of 8.
  let outputChannels: Int
  /// Kernel side.
  let kernel: Int
  /// Stride.
  let stride: Int
  /// Weights laid out `[kernel][kernel][3][outputChannels]`.
  let weights: [Float]
  /// Bias per output channel.
  let bias: [Float]

  /// Creates the layer; `nil` if the sizes disagree.
  init?(weights: [Float], bias: [Float], outputChannels: Int, kernel: Int, stride: Int) {
    guard outputChannels > 0, outputChannels % 8 == 0, kernel > 0, stride > 0,
      weights.count == kernel * kernel * 3 * outputChannels, bias.count == outputChannels
    else { return nil }
    self.outputChannels = outputChannels
    self.kernel = kernel
    self.stride = stride
    self.weights = weights
    self.bias = bias
  }

  /// Applies the layer to an `height × width × 3` input; returns the output size.
  /// `threads > 1` splits the output rows.
  @discardableResult
  func apply(
    _ input: UnsafePointer<Float>, height: Int, width: Int,
    into output: UnsafeMutablePointer<Float>,
    threads: Int = 1
  ) -> (height: Int, width: Int) {
    let (oh, padTop) = DepthwiseConvolution.samePadding(
      input: height, kernel: kernel, stride: stride)
    let (ow, padLeft) = DepthwiseConvolution.samePadding(
      input: width, kernel: kernel, stride: stride)
    let co = outputChannels
    let k = kernel
    weights.withUnsafeBufferPointer { wb in
      bias.withUnsafeBufferPointer { bb in
        guard let w = wb.baseAddress, let b = bb.baseAddress else { return }
        forEachChunk(of: oh, threads: threads, multiple: 1) { rows in
          for oy in rows {
            let iy0 = oy * stride - padTop
            for ox in 0..<ow {
              let ix0 = ox * stride - padLeft
              let out = output + (oy * ow + ox) * co
              var group = 0
              // Thirty-two channels at a time: eight independent accumulator chains share each
              // input value, instead of two chains waiting on each other's additions.
              while group + 32 <= co {
                var a0 = FloatOctet(bias: b + group)
                var a1 = FloatOctet(bias: b + (group + 8))
                var a2 = FloatOctet(bias: b + (group + 16))
                var a3 = FloatOctet(bias: b + (group + 24))
                for ky in 0..<k {
                  let iy = iy0 + ky
                  guard iy >= 0, iy < height else { continue }
                  for kx in 0..<k {
                    let ix = ix0 + kx
                    guard ix >= 0, ix < width else { continue }
                    let px = input + (iy * width + ix) * 3
                    var wt = w + (((ky * k + kx) * 3) * co + group)
                    for channel in 0..<3 {
                      let value = px[channel]
                      a0.accumulate(wt, value)
                      a1.accumulate(wt + 8, value)
                      a2.accumulate(wt + 16, value)
                      a3.accumulate(wt + 24, value)
                      wt += co
                    }
                  }
                }
                a0.store(out + group, residual: nil, relu6: true)
                a1.store(out + (group + 8), residual: nil, relu6: true)
                a2.store(out + (group + 16), residual: nil, relu6: true)
                a3.store(out + (group + 24), residual: nil, relu6: true)
                group += 32
              }
              while group < co {
                var acc = FloatOctet(bias: b + group)
                for ky in 0..<k {
                  let iy = iy0 + ky
                  guard iy >= 0, iy < height else { continue }
                  for kx in 0..<k {
                    let ix = ix0 + kx
                    guard ix >= 0, ix < width else { continue }
                    let px = input + (iy * width + ix) * 3
                    let wt = w + ((ky * k + kx) * 3) * co + group
                    acc.accumulate(wt, px[0])
                    acc.accumulate(wt + co, px[1])
                    acc.accumulate(wt + 2 * co, px[2])
                  }
                }
                acc.store(out + group, residual: nil, relu6: true)
                group += 8
              }
            }
          }
        }
      }
    }
    return (oh, ow)
  }
}
