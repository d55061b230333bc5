#if arch(x86_64)
  internal import _Builtin_intrinsics.intel
#endif

extension QuantizedPointwiseConvolution {
  /// The channel-skipping strategy of
  /// ``applySkippingZeros(quantized:inputScale:pixels:into:residual:threads:)`` over rows
  /// `pixels`, for a layer in the ``WeightLayout/channelRows`` layout. `list` has room for
  /// ``pairedChannels`` + 8 values; it holds the listed channels' indices, then the byte offsets
  /// of their pairs' weight rows.
  func runSkippingZeroChannels(
    _ q: UnsafePointer<Int16>, pixels: Range<Int>, weights: UnsafePointer<Int16>,
    scales: UnsafePointer<Float>, inputScale: Float, bias: UnsafePointer<Float>,
    output y: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
    list: UnsafeMutablePointer<Int32>, compaction: UnsafePointer<Int32>
  ) {
    let row = pairedChannels
    let cout = outputChannels
    let panels = cout / 8
    // One panel holds 16 bytes (eight outputs) per input channel.
    let panelBytes = row &* 16
    let sx = Float4Lanes(repeating: inputScale)
    let w = UnsafeRawPointer(weights)
    // The pairs' inputs: two broadcast registers (32 bytes) per pair.
    withUnsafeTemporaryAllocation(byteCount: (row / 2 &+ 1) &* 32, alignment: 16) { inputs in
      guard let inputs = inputs.baseAddress else { return }
      var p = pixels.lowerBound
      while p < pixels.upperBound {
        let second = p &+ 1 < pixels.upperBound ? p &+ 1 : p
        let x0 = q + p &* row
        let x1 = q + second &* row
        let count = Self.nonzeroChannels(
          x0, x1, channels: row, into: list, compaction: compaction)
        let entries = Self.pairUp(list, count: count, x0, x1, into: inputs)
        let out = PixelPairOutput(p, second, output: y, residual: residual, channels: cout)
        var panel = 0
        while panel < panels {
          // Two panels when there are, else the last one; two loops, as in the pair kernel.
          let wide = panel &+ 2 <= panels
          var sums = PanelPairSums()
          let w0 = w + panel &* panelBytes
          if wide {
            let w1 = w0 + panelBytes
            for e in 0..<entries {
              let (a, b) = (Int(list[2 &* e]), Int(list[2 &* e &+ 1]))
              let (low0, high0) = Self.interleavedRows(w0, a, b)
              let (low1, high1) = Self.interleavedRows(w1, a, b)
              sums.accumulate(
                Int16Lanes(aligned: inputs + e &* 32),
                Int16Lanes(aligned: inputs + (e &* 32 &+ 16)), low0, high0, low1, high1)
            }
          } else {
            for e in 0..<entries {
              let (low, high) = Self.interleavedRows(
                w0, Int(list[2 &* e]), Int(list[2 &* e &+ 1]))
              sums.accumulate(
                Int16Lanes(aligned: inputs + e &* 32),
                Int16Lanes(aligned: inputs + (e &* 32 &+ 16)), low, high)
            }
          }
          out.store(sums, channel: panel &* 8, wide: wide) {
            Epilogue(
              channel: $0, scales: scales, inputScale: sx, bias: bias, relu6: clampsToReLU6)
          }
          panel &+= wide ? 2 : 1
        }
        p &+= 2
      }
    }
  }

  /// The weight rows of channels at byte offsets `a` and `b` of `panel`, interleaved into the
  /// two registers `pmaddwd` takes with the pair's inputs: outputs 0–3 and 4–7.
  @inline(__always)
  private static func interleavedRows(
    _ panel: UnsafeRawPointer, _ a: Int, _ b: Int
  ) -> (Int16Lanes, Int16Lanes) {
    let u = Int16Lanes(loading: panel + a)
    let v = Int16Lanes(loading: panel + b)
    return (u.interleavingLow(with: v), u.interleavingHigh(with: v))
  }

  /// Writes the indices of the channels (below `channels`, a multiple of 2) that are nonzero in
  /// row `x0` or row `x1` to `list`, in order, and returns how many there are. `list` has room
  /// for `channels + 8` values.
  @inline(__always)
  private static func nonzeroChannels(
    _ x0: UnsafePointer<Int16>, _ x1: UnsafePointer<Int16>, channels: Int,
    into list: UnsafeMutablePointer<Int32>, compaction: UnsafePointer<Int32>
  ) -> Int {
    var count = 0
    var c = 0
    #if arch(x86_64)
      let zero = _mm_setzero_si128()
      while c &+ 8 <= channels {
        let a = _mm_loadu_si128(UnsafeRawPointer(x0 + c).assumingMemoryBound(to: __m128i.self))
        let b = _mm_loadu_si128(UnsafeRawPointer(x1 + c).assumingMemoryBound(to: __m128i.self))
        let zeros = _mm_cmpeq_epi16(_mm_or_si128(a, b), zero)
        let kept = Int(~_mm_movemask_epi8(_mm_packs_epi16(zeros, zeros)) & 0xFF)
        count = appendPositions(of: kept & 15, plus: c, to: list, at: count, table: compaction)
        count = appendPositions(
          of: kept &>> 4, plus: c &+ 4, to: list, at: count, table: compaction)
        c &+= 8
      }
    #endif
    while c < channels {
      list[count] = Int32(truncatingIfNeeded: c)
      count &+= x0[c] | x1[c] != 0 ? 1 : 0
      c &+= 1
    }
    return count
  }

  /// Pairs the `count` listed channels up in order (an odd last one with itself, its second
  /// input zero), writes each pair's inputs to `inputs` (pixel 0's two values repeated four
  /// times, then pixel 1's), rewrites the list as the pairs' weight-row byte offsets, and
  /// returns the number of pairs.
  @inline(__always)
  private static func pairUp(
    _ list: UnsafeMutablePointer<Int32>, count: Int, _ x0: UnsafePointer<Int16>,
    _ x1: UnsafePointer<Int16>, into inputs: UnsafeMutableRawPointer
  ) -> Int {
    @inline(__always) func bits(_ x: UnsafePointer<Int16>, _ i: Int) -> UInt32 {
      UInt32(UInt16(bitPattern: x[i]))
    }
    var e = 0
    while 2 &* e &+ 1 < count {
      let a = Int(list[2 &* e])
      let b = Int(list[2 &* e &+ 1])
      Int16Lanes(repeatingPair: bits(x0, a) | bits(x0, b) &<< 16).store(to: inputs + e &* 32)
      Int16Lanes(repeatingPair: bits(x1, a) | bits(x1, b) &<< 16).store(
        to: inputs + (e &* 32 &+ 16))
      list[2 &* e] = Int32(truncatingIfNeeded: a &* 16)
      list[2 &* e &+ 1] = Int32(truncatingIfNeeded: b &* 16)
      e &+= 1
    }
    if 2 &* e < count {
      let a = Int(list[2 &* e])
      Int16Lanes(repeatingPair: bits(x0, a)).store(to: inputs + e &* 32)
      Int16Lanes(repeatingPair: bits(x1, a)).store(to: inputs + (e &* 32 &+ 16))
      list[2 &* e] = Int32(truncatingIfNeeded: a &* 16)
      list[2 &* e &+ 1] = Int32(truncatingIfNeeded: a &* 16)
      e &+= 1
    }
    return e
  }
}
