#if arch(x86_64)
  internal import _Builtin_intrinsics.intel
#endif

extension QuantizedPointwiseConvolution {
  /// Runs the convolution on `pixels` rows of an already quantized input, `x ≈ inputScale · q`
  /// with `|q| ≤` ``activationLimit`` in compact rows of ``pairedChannels`` values (the layout
  /// the depthwise layer writes), multiplying only the input channel pairs that are nonzero; the
  /// output has the bits the dense kernel gives on the same input
  /// (``apply(tiles:inputScale:pixels:into:residual:threads:)``). `threads > 1` splits the pixels.
  ///
  /// Why it exists: a projection's input is a ReLU6 output, and on real photos about six in ten
  /// of its values, and nearly four in ten of its channel pairs, are exactly zero once
  /// quantized. A zero pair adds nothing to any sum. This entry takes two pixels at a time, lists
  /// the pairs that are nonzero in either, and runs the multiply-adds over that list only, 16
  /// output channels at a time (each weight load serves both pixels). The integer sums are the
  /// same sums in the same order, so the result is exact, not an approximation; on the bundled
  /// photos it skips about a third of the projections' multiply-adds. On a dense input the
  /// tiled six-pixel kernel (``apply(tiles:inputScale:pixels:into:residual:threads:)``) is faster.
  func applySkippingZeroPairs(
    quantized q: UnsafePointer<Int16>, inputScale: Float, pixels: Int,
    into output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>? = nil,
    threads: Int = 1
  ) {
    withParameters { w, s, b in
      Self.pairCompaction.withUnsafeBufferPointer { table in
        guard let compaction = table.baseAddress else { return }
        forEachChunk(of: pixels, threads: threads, multiple: 2) { range in
          withUnsafeTemporaryAllocation(of: Int32.self, capacity: pairedChannels / 2) { list in
            guard let list = list.baseAddress else { return }
            runSkippingZeroPairs(
              q, pixels: range, weights: w, scales: s, inputScale: inputScale, bias: b,
              output: output, residual: residual, list: list, compaction: compaction)
          }
        }
      }
    }
  }

  /// Writes the indices of the pairs of `pairs` that are nonzero in row `x0` or row `x1` to
  /// `list`, in order, and returns how many there are.
  @inline(__always)
  private static func nonzeroPairs(
    _ x0: UnsafeRawPointer, _ x1: UnsafeRawPointer, pairs: Int,
    into list: UnsafeMutablePointer<Int32>, compaction: UnsafePointer<Int32>
  ) -> Int {
    var count = 0
    var j = 0
    #if arch(x86_64)
      // Four pairs at a time: one compare gives a 4-bit mask of the nonzero ones, and a table
      // row holds those lanes' positions in order; all four slots are stored and the count moves
      // past the nonzero ones only. `count <= j`, so the store stays inside `list`.
      let zero = _mm_setzero_si128()
      while j &+ 4 <= pairs {
        let a = _mm_loadu_si128((x0 + j &* 4).assumingMemoryBound(to: __m128i.self))
        let b = _mm_loadu_si128((x1 + j &* 4).assumingMemoryBound(to: __m128i.self))
        let zeros = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_or_si128(a, b), zero)))
        let kept = Int(~zeros & 15)
        let positions = _mm_loadu_si128(
          UnsafeRawPointer(compaction + kept &* 4).assumingMemoryBound(to: __m128i.self))
        _mm_storeu_si128(
          UnsafeMutableRawPointer(list + count).assumingMemoryBound(to: __m128i.self),
          _mm_add_epi32(positions, _mm_set1_epi32(Int32(truncatingIfNeeded: j))))
        // The number of set bits of `kept`, one nibble per mask value.
        count &+= (0x4332_3221_3221_2110 &>> (kept &* 4)) & 15
        j &+= 4
      }
    #endif
    while j < pairs {
      // Branch-free: the index is always written; the count moves past it only when the pair is
      // nonzero (a data-dependent branch here mispredicts about every third pair).
      list[count] = Int32(truncatingIfNeeded: j)
      let v = pair(x0, j).bits | pair(x1, j).bits
      count &+= Int((v | (0 &- v)) >> 31)
      j &+= 1
    }
    return count
  }

  /// For each 4-bit mask, the positions of its set bits in order (then zeros): the table
  /// ``nonzeroPairs(_:_:pairs:into:compaction:)`` compacts four indices with.
  private static let pairCompaction: [Int32] = (0..<16).flatMap { mask in
    let set = (0..<4).filter { mask & (1 << $0) != 0 }.map { Int32($0) }
    return set + [Int32](repeating: 0, count: 4 - set.count)
  }

  /// Pair `j` of a quantized row: its two values as one 32-bit pattern.
  @inline(__always)
  private static func pair(_ x: UnsafeRawPointer, _ j: Int) -> (bits: UInt32, lanes: Int16Lanes) {
    let bits = x.loadUnaligned(fromByteOffset: j &* 4, as: UInt32.self)
    return (bits, Int16Lanes(repeatingPair: bits))
  }

  @inline(__always)
  private func runSkippingZeroPairs(
    _ q: UnsafePointer<Int16>, pixels: Range<Int>, weights: UnsafePointer<Int16>,
    scales: UnsafePointer<Float>, inputScale: Float, bias: UnsafePointer<Float>,
    output y: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
    list: UnsafeMutablePointer<Int32>, compaction: UnsafePointer<Int32>
  ) {
    let row = pairedChannels
    let pairs = row / 2
    let cout = outputChannels
    // A panel (eight output channels) holds 32 bytes per pair.
    let panelBytes = pairs &* 32
    let sx = Float4Lanes(repeating: inputScale)
    @inline(__always) func epilogue(_ c: Int) -> Epilogue {
      Epilogue(channel: c, scales: scales, inputScale: sx, bias: bias, relu6: clampsToReLU6)
    }
    var p = pixels.lowerBound
    while p < pixels.upperBound {
      // Two pixels, or the last one twice (its second copy is computed but not stored).
      let second = p &+ 1 < pixels.upperBound ? p &+ 1 : p
      let x0 = UnsafeRawPointer(q + p &* row)
      let x1 = UnsafeRawPointer(q + second &* row)
      let count = Self.nonzeroPairs(
        x0, x1, pairs: pairs, into: list, compaction: compaction)
      let out0 = y + p &* cout
      let out1 = y + second &* cout
      let res0 = residual.map { $0 + p &* cout }
      let res1 = residual.map { $0 + second &* cout }
      let stores1 = second != p
      var c = 0
      while c < cout {
        // 16 output channels (two panels) when there are, else the last 8.
        let wide = c &+ 16 <= cout
        var a0 = Int32Lanes()
        var a1 = Int32Lanes()
        var a2 = Int32Lanes()
        var a3 = Int32Lanes()
        var b0 = Int32Lanes()
        var b1 = Int32Lanes()
        var b2 = Int32Lanes()
        var b3 = Int32Lanes()
        let w0 = UnsafeRawPointer(weights) + (c / 8) &* panelBytes
        // Two loops rather than one with an `if wide` inside: the optimiser does not hoist that
        // test out of the loop, and it costs a compare and branch per pair.
        if wide {
          let w1 = w0 + panelBytes
          for t in 0..<count {
            let j = Int(list[t])
            let xa = Self.pair(x0, j).lanes
            let xb = Self.pair(x1, j).lanes
            let o = j &* 32
            let v0 = Int16Lanes(loading: w0 + o)
            let v1 = Int16Lanes(loading: w0 + (o &+ 16))
            let v2 = Int16Lanes(loading: w1 + o)
            let v3 = Int16Lanes(loading: w1 + (o &+ 16))
            a0 &+= xa.multipliedPairwise(by: v0)
            a1 &+= xa.multipliedPairwise(by: v1)
            a2 &+= xa.multipliedPairwise(by: v2)
            a3 &+= xa.multipliedPairwise(by: v3)
            b0 &+= xb.multipliedPairwise(by: v0)
            b1 &+= xb.multipliedPairwise(by: v1)
            b2 &+= xb.multipliedPairwise(by: v2)
            b3 &+= xb.multipliedPairwise(by: v3)
          }
        } else {
          for t in 0..<count {
            let j = Int(list[t])
            let xa = Self.pair(x0, j).lanes
            let xb = Self.pair(x1, j).lanes
            let o = j &* 32
            let v0 = Int16Lanes(loading: w0 + o)
            let v1 = Int16Lanes(loading: w0 + (o &+ 16))
            a0 &+= xa.multipliedPairwise(by: v0)
            a1 &+= xa.multipliedPairwise(by: v1)
            b0 &+= xb.multipliedPairwise(by: v0)
            b1 &+= xb.multipliedPairwise(by: v1)
          }
        }
        let e0 = epilogue(c)
        e0.store(a0, a1, to: out0 + c, residual: res0.map { $0 + c })
        if stores1 { e0.store(b0, b1, to: out1 + c, residual: res1.map { $0 + c }) }
        if wide {
          let c1 = c &+ 8
          let e1 = epilogue(c1)
          e1.store(a2, a3, to: out0 + c1, residual: res0.map { $0 + c1 })
          if stores1 { e1.store(b2, b3, to: out1 + c1, residual: res1.map { $0 + c1 }) }
        }
        c &+= wide ? 16 : 8
      }
      p &+= 2
    }
  }
}
