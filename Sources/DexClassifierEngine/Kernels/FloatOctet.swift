/// Eight consecutive channels of one pixel, as eight scalars.
///
/// The convolution kernels accumulate into these rather than into `SIMD8<Float>`: the optimiser
/// vectorises the straight-line scalar code just as well, and unoptimised debug builds (what
/// `swift test` runs) stay about thirty times faster than with generic SIMD operations.
struct FloatOctet {
  var v0: Float
  var v1: Float
  var v2: Float
  var v3: Float
  var v4: Float
  var v5: Float
  var v6: Float
  var v7: Float

  @inline(__always)
  init(bias b: UnsafePointer<Float>) {
    (v0, v1, v2, v3) = (b[0], b[1], b[2], b[3])
    (v4, v5, v6, v7) = (b[4], b[5], b[6], b[7])
  }

  /// `self += w[0..<8] * x`.
  @inline(__always)
  mutating func accumulate(_ w: UnsafePointer<Float>, _ x: Float) {
    v0 += w[0] * x
    v1 += w[1] * x
    v2 += w[2] * x
    v3 += w[3] * x
    v4 += w[4] * x
    v5 += w[5] * x
    v6 += w[6] * x
    v7 += w[7] * x
  }

  /// `self += w[0..<8] * x[0..<8]`, element-wise.
  @inline(__always)
  mutating func accumulate(_ w: UnsafePointer<Float>, _ x: UnsafePointer<Float>) {
    v0 += w[0] * x[0]
    v1 += w[1] * x[1]
    v2 += w[2] * x[2]
    v3 += w[3] * x[3]
    v4 += w[4] * x[4]
    v5 += w[5] * x[5]
    v6 += w[6] * x[6]
    v7 += w[7] * x[7]
  }

  /// Writes the eight values, after adding `residual` and clamping to `0...6` when asked.
  @inline(__always)
  func store(_ out: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?, relu6: Bool) {
    var t = self
    if let r = residual {
      t.v0 += r[0]
      t.v1 += r[1]
      t.v2 += r[2]
      t.v3 += r[3]
      t.v4 += r[4]
      t.v5 += r[5]
      t.v6 += r[6]
      t.v7 += r[7]
    }
    if relu6 {
      t.v0 = min(max(t.v0, 0), 6)
      t.v1 = min(max(t.v1, 0), 6)
      t.v2 = min(max(t.v2, 0), 6)
      t.v3 = min(max(t.v3, 0), 6)
      t.v4 = min(max(t.v4, 0), 6)
      t.v5 = min(max(t.v5, 0), 6)
      t.v6 = min(max(t.v6, 0), 6)
      t.v7 = min(max(t.v7, 0), 6)
    }
    (out[0], out[1], out[2], out[3]) = (t.v0, t.v1, t.v2, t.v3)
    (out[4], out[5], out[6], out[7]) = (t.v4, t.v5, t.v6, t.v7)
  }

  /// Clamps to `0...6` (ReLU6) and writes `round(value · multiplier)` as eight 16-bit integers:
  /// a depthwise output quantized straight into the next 1×1 convolution's input, with no float
  /// copy in between.
  @inline(__always)
  func storeQuantizedReLU6(_ out: UnsafeMutablePointer<Int16>, multiplier: Float4Lanes) {
    let zero = Float4Lanes(repeating: 0)
    let six = Float4Lanes(repeating: 6)
    let low = Float4Lanes(v0, v1, v2, v3).clamped(zero, six) * multiplier
    let high = Float4Lanes(v4, v5, v6, v7).clamped(zero, six) * multiplier
    Int16Lanes(rounding: low, high).store(to: UnsafeMutableRawPointer(out))
  }
}
