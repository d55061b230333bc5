/// A k×k depthwise convolution over an NHWC activation, fused with bias and ReLU6, with
/// TensorFlow "SAME" padding (on stride 2 the extra row and column of padding go bottom/right).
///
/// Channels are the innermost, contiguous dimension, so every tap is one eight-wide
/// multiply-add over eight channels (see ``FloatOctet``). A multiply-add chain waits on its own
/// previous addition, so the kernel always keeps eight or more chains in flight: six or four
/// neighbouring output pixels share each weight load where all their taps lie inside the row
/// (``DepthwisePixelGroup``), and a lone pixel at a border takes 32 channels at a time. Padding
/// is handled by clipping the tap range rather than by materialising a padded copy.
struct DepthwiseConvolution: Sendable {
  /// Channels (input = output), a multiple of 8.
  let channels: Int
  /// Kernel side (3 or 5).
  let kernel: Int
  /// Stride (1 or 2).
  let stride: Int
  /// Weights laid out `[kernel][kernel][channels]`, four channels to an element: the element type
  /// keeps every group of four 16-byte aligned, so that a lone border pixel, which uses each
  /// weight once, can multiply by it straight from memory instead of loading it first.
  let weights: [SIMD4<Float>]
  /// Bias per channel.
  let bias: [Float]

  /// Creates the layer; `nil` if the sizes disagree.
  init?(weights: [Float], bias: [Float], channels: Int, kernel: Int, stride: Int) {
    guard channels > 0, channels % 8 == 0, kernel > 0, stride > 0,
      weights.count == kernel * kernel * channels, bias.count == channels
    else { return nil }
    self.channels = channels
    self.kernel = kernel
    self.stride = stride
    var groups = [SIMD4<Float>](repeating: .zero, count: weights.count / 4)
    for i in 0..<weights.count { groups[i / 4][i % 4] = weights[i] }
    self.weights = groups
    self.bias = bias
  }

  /// The output side and the padding before the first row/column for an input side, TF SAME.
  static func samePadding(input: Int, kernel: Int, stride: Int) -> (output: Int, before: Int) {
    let output = (input + stride - 1) / stride
    let total = max((output - 1) * stride + kernel - input, 0)
    return (output, total / 2)
  }

  /// Where the layer writes its `height × width × channels` output.
  enum Destination {
    /// Floats, after ReLU6.
    case floats(UnsafeMutablePointer<Float>)
    /// 16-bit integers `round(min(max(x, 0), 6) / reluInputScale)`: the input of an int16 1×1
    /// convolution (see ``QuantizedPointwiseConvolution/reluInputScale``), written without a
    /// float copy, a max pass and a quantize pass in between.
    case quantizedReLU6(UnsafeMutablePointer<Int16>)
  }

  /// Applies the layer to an `height × width × channels` input, writing to `destination`;
  /// returns the output size. `threads > 1` splits the output rows.
  @discardableResult
  func apply(
    _ input: UnsafePointer<Float>, height: Int, width: Int, into destination: Destination,
    threads: Int = 1
  ) -> (height: Int, width: Int) {
    let (oh, _) = Self.samePadding(input: height, kernel: kernel, stride: stride)
    let (ow, _) = Self.samePadding(input: width, kernel: kernel, stride: stride)
    forEachChunk(of: oh, threads: threads, multiple: 1) { rows in
      apply(
        band: input, firstRow: 0, height: height, width: width, outRows: rows,
        into: destination)
    }
    return (oh, ow)
  }

  /// Computes output rows `outRows` from a band of input rows that starts at input row
  /// `firstRow` (`input` points at that row), on the calling thread: the band-by-band
  /// inverted-residual block uses it so that only the rows these outputs need exist at once,
  /// and the whole-tensor entry runs each of its chunks through it. `height` is the whole
  /// input's height, which decides the padding.
  func apply(
    band input: UnsafePointer<Float>, firstRow: Int, height: Int, width: Int,
    outRows: Range<Int>, into destination: Destination
  ) {
    let (_, padTop) = Self.samePadding(input: height, kernel: kernel, stride: stride)
    let (ow, padLeft) = Self.samePadding(input: width, kernel: kernel, stride: stride)
    weights.withUnsafeBufferPointer { groups in
      groups.withMemoryRebound(to: Float.self) { w in
        bias.withUnsafeBufferPointer { b in
          guard let w = w.baseAddress, let b = b.baseAddress else { return }
          run(
            input, firstRow: firstRow, height: height, width: width, destination: destination,
            outRows: outRows, outWidth: ow, padTop: padTop, padLeft: padLeft, weights: w, bias: b)
        }
      }
    }
  }

  @inline(__always)
  private func run(
    _ x: UnsafePointer<Float>, firstRow: Int, height: Int, width: Int,
    destination: Destination,
    outRows: Range<Int>, outWidth: Int, padTop: Int, padLeft: Int,
    weights w: UnsafePointer<Float>, bias b: UnsafePointer<Float>
  ) {
    // Writes eight finished channels at element offset `offset` of the output.
    @inline(__always) func put(_ value: FloatOctet, _ offset: Int) {
      switch destination {
      case .floats(let y): value.store(y + offset, residual: nil, relu6: true)
      case .quantizedReLU6(let q):
        value.storeQuantizedReLU6(
          q + offset,
          multiplier: Float4Lanes(repeating: 1 / QuantizedPointwiseConvolution.reluInputScale))
      }
    }
    // The same for eight channels held as two four-wide registers.
    @inline(__always) func put(_ low: Float4Lanes, _ high: Float4Lanes, _ offset: Int) {
      let zero = Float4Lanes(repeating: 0)
      let six = Float4Lanes(repeating: 6)
      switch destination {
      case .floats(let y):
        low.clamped(zero, six).store(to: y + offset)
        high.clamped(zero, six).store(to: y + offset + 4)
      case .quantizedReLU6(let q):
        let m = Float4Lanes(repeating: 1 / QuantizedPointwiseConvolution.reluInputScale)
        Int16Lanes(rounding: low.clamped(zero, six) * m, high.clamped(zero, six) * m)
          .store(to: UnsafeMutableRawPointer(q + offset))
      }
    }
    let c = channels
    let k = kernel
    let s = stride
    // Output columns whose taps all lie inside the input row: there neighbouring outputs share
    // every weight load, and each brings two independent accumulator chains.
    let interiorStart = (padLeft + s - 1) / s
    let interiorEnd = max(interiorStart, min(outWidth, (width + padLeft - k) / s + 1))
    for oy in outRows {
      let iy0 = oy &* s &- padTop
      let kyStart = max(0, -iy0)
      let kyEnd = min(k, height &- iy0)
      // `G.count` neighbouring interior outputs from output column `ox`, all channels.
      @inline(__always) func interior<G: DepthwisePixelGroup>(_: G.Type, at ox: Int) {
        let ix0 = ox &* s &- padLeft
        let out = (oy &* outWidth &+ ox) &* c
        let step = s &* c
        var ch = 0
        while ch < c {
          var group = G(bias: b + ch)
          var ky = kyStart
          while ky < kyEnd {
            var px = x + (((iy0 &+ ky &- firstRow) &* width &+ ix0) &* c &+ ch)
            var wt = w + (ky &* k &* c &+ ch)
            for _ in 0..<k {
              group.accumulate(wt, px, step: step)
              px += c
              wt += c
            }
            ky &+= 1
          }
          group.forEach { pixel, value in put(value, out &+ (pixel &* c &+ ch)) }
          ch &+= 8
        }
      }
      var ox = 0
      while ox < outWidth {
        // Six at a time where that leaves no two or three lone columns behind (eight become
        // four and four), else four.
        let interiorLeft = interiorEnd &- ox
        if ox >= interiorStart, interiorLeft >= 6, interiorLeft != 8, interiorLeft != 9 {
          interior(SixPixels.self, at: ox)
          ox &+= SixPixels.count
          continue
        }
        if ox >= interiorStart, interiorLeft >= 4 {
          interior(FourPixels.self, at: ox)
          ox &+= FourPixels.count
          continue
        }
        let ix0 = ox &* s &- padLeft
        let out = (oy &* outWidth &+ ox) &* c
        let kxStart = max(0, -ix0)
        let kxEnd = min(k, width &- ix0)
        var ch = 0
        // A lone output pixel (at a border, or in a row too short for a group of four): 32
        // channels at a time keep eight accumulator chains busy instead of waiting on two.
        while ch &+ 32 <= c {
          // Four-wide registers rather than ``FloatOctet``s: each weight is used once, so the
          // multiply takes it from memory (the weights are 16-byte aligned, see ``weights``),
          // three instructions per four multiply-adds instead of four. The same operations in
          // the same order as the other paths, so the same bits.
          var a0 = Float4Lanes(loading: b + ch)
          var a1 = Float4Lanes(loading: b + (ch &+ 4))
          var a2 = Float4Lanes(loading: b + (ch &+ 8))
          var a3 = Float4Lanes(loading: b + (ch &+ 12))
          var a4 = Float4Lanes(loading: b + (ch &+ 16))
          var a5 = Float4Lanes(loading: b + (ch &+ 20))
          var a6 = Float4Lanes(loading: b + (ch &+ 24))
          var a7 = Float4Lanes(loading: b + (ch &+ 28))
          var ky = kyStart
          while ky < kyEnd {
            var px = x + (((iy0 &+ ky &- firstRow) &* width &+ ix0 &+ kxStart) &* c &+ ch)
            var wt = w + ((ky &* k &+ kxStart) &* c &+ ch)
            var kx = kxStart
            while kx < kxEnd {
              a0 = a0 + Float4Lanes(aligned: wt) * Float4Lanes(loading: px)
              a1 = a1 + Float4Lanes(aligned: wt + 4) * Float4Lanes(loading: px + 4)
              a2 = a2 + Float4Lanes(aligned: wt + 8) * Float4Lanes(loading: px + 8)
              a3 = a3 + Float4Lanes(aligned: wt + 12) * Float4Lanes(loading: px + 12)
              a4 = a4 + Float4Lanes(aligned: wt + 16) * Float4Lanes(loading: px + 16)
              a5 = a5 + Float4Lanes(aligned: wt + 20) * Float4Lanes(loading: px + 20)
              a6 = a6 + Float4Lanes(aligned: wt + 24) * Float4Lanes(loading: px + 24)
              a7 = a7 + Float4Lanes(aligned: wt + 28) * Float4Lanes(loading: px + 28)
              px += c
              wt += c
              kx &+= 1
            }
            ky &+= 1
          }
          put(a0, a1, out &+ ch)
          put(a2, a3, out &+ (ch &+ 8))
          put(a4, a5, out &+ (ch &+ 16))
          put(a6, a7, out &+ (ch &+ 24))
          ch &+= 32
        }
        while ch < c {
          var acc = FloatOctet(bias: b + ch)
          var ky = kyStart
          while ky < kyEnd {
            let row = x + (((iy0 &+ ky &- firstRow) &* width &+ ix0) &* c &+ ch)
            let wrow = w + (ky &* k &* c &+ ch)
            var kx = kxStart
            while kx < kxEnd {
              acc.accumulate(wrow + (kx &* c), row + (kx &* c))
              kx &+= 1
            }
            ky &+= 1
          }
          put(acc, out &+ ch)
          ch &+= 8
        }
        ox &+= 1
      }
    }
  }
}
