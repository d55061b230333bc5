#if arch(x86_64)
  internal import _Builtin_intrinsics.intel
#endif

extension QuantizedPointwiseConvolution {
  /// Runs the convolution on `pixels` rows of an already quantized input, `x ≈ inputScale · q`
  /// with `|q| ≤` ``activationLimit`` in compact rows of ``pairedChannels`` values (the layout
  /// the depthwise layer writes), multiplying only the inputs that are nonzero; the output has
  /// the bits the dense kernel gives on the same input
  /// (``apply(tiles:inputScale:pixels:into:residual:threads:)``). `threads > 1` splits the pixels.
  ///
  /// Why it exists: a projection's input is a ReLU6 output, and on real photos about six in ten
  /// of its values are exactly zero once quantized, and a zero adds nothing to any sum. Both
  /// strategies take two pixels at a time (each weight load serves both) and list what is
  /// nonzero in either:
  /// - the channel pairs, for a layer in the ``WeightLayout/channelPairs`` layout (a narrow
  ///   projection): the multiply-adds run over that list, 16 output channels at a time. It skips
  ///   about a third of the projections' multiply-adds on the bundled photos.
  /// - single channels, for the ``WeightLayout/channelRows`` layout (a projection with at least
  ///   ``channelSkippingMinimumOutputs`` outputs): the listed channels are paired up as they
  ///   come, each pair's two inputs broadcast once, and the two weight rows interleaved in
  ///   registers (two more instructions per panel) so that `pmaddwd` still does eight
  ///   multiply-adds. Half the values, rather than a third, are skipped on those layers.
  ///
  /// Integer sums do not depend on the order of their terms, so the result is exact, not an
  /// approximation. On a dense input the tiled six-pixel kernel is faster.
  func applySkippingZeros(
    quantized q: UnsafePointer<Int16>, inputScale: Float, pixels: Int,
    into output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>? = nil,
    threads: Int = 1
  ) {
    withParameters { w, s, b in
      Self.setBitPositions.withUnsafeBufferPointer { table in
        guard let compaction = table.baseAddress else { return }
        forEachChunk(of: pixels, threads: threads, multiple: 2) { range in
          // Room for every channel's index plus the four-wide stores' spare slots (the pair
          // strategy uses half).
          withUnsafeTemporaryAllocation(of: Int32.self, capacity: pairedChannels &+ 8) { list in
            guard let list = list.baseAddress else { return }
            switch layout {
            case .channelPairs:
              runSkippingZeroPairs(
                q, pixels: range, weights: w, scales: s, inputScale: inputScale, bias: b,
                output: output, residual: residual, list: list, compaction: compaction)
            case .channelRows:
              runSkippingZeroChannels(
                q, pixels: range, weights: w, scales: s, inputScale: inputScale, bias: b,
                output: output, residual: residual, list: list, compaction: compaction)
            }
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
        count = appendPositions(
          of: Int(~zeros & 15), plus: j, to: list, at: count, table: compaction)
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

  #if arch(x86_64)
    /// Writes `base + i` for each set bit `i` of the 4-bit `mask`, in order, to `list` at
    /// `count`, and returns the count past them. Four slots are stored whatever the mask (a
    /// table row holds the positions), so `list` needs room for four past `count`; branch-free.
    @inline(__always)
    static func appendPositions(
      of mask: Int, plus base: Int, to list: UnsafeMutablePointer<Int32>, at count: Int,
      table: UnsafePointer<Int32>
    ) -> Int {
      let positions = _mm_loadu_si128(
        UnsafeRawPointer(table + mask &* 4).assumingMemoryBound(to: __m128i.self))
      _mm_storeu_si128(
        UnsafeMutableRawPointer(list + count).assumingMemoryBound(to: __m128i.self),
        _mm_add_epi32(positions, _mm_set1_epi32(Int32(truncatingIfNeeded: base))))
      // The number of set bits of `mask`, one nibble per mask value.
      return count &+ (0x4332_3221_3221_2110 &>> (mask &* 4)) & 15
    }
  #endif

  /// For each 4-bit mask, the positions of its set bits in order (then zeros): the table the
  /// zero-skipping kernels compact four indices with.
  static let setBitPositions: [Int32] = (0..<16).flatMap { mask in
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
      let out = PixelPairOutput(p, second, output: y, residual: residual, channels: cout)
      var c = 0
      while c < cout {
        // 16 output channels (two panels) when there are, else the last 8.
        let wide = c &+ 16 <= cout
        var sums = PanelPairSums()
        let w0 = UnsafeRawPointer(weights) + (c / 8) &* panelBytes
        // Two loops rather than one with an `if wide` inside: the optimiser does not hoist that
        // test out of the loop, and it costs a compare and branch per pair.
        if wide {
          let w1 = w0 + panelBytes
          for t in 0..<count {
            let j = Int(list[t])
            let o = j &* 32
            sums.accumulate(
              Self.pair(x0, j).lanes, Self.pair(x1, j).lanes, Int16Lanes(loading: w0 + o),
              Int16Lanes(loading: w0 + (o &+ 16)), Int16Lanes(loading: w1 + o),
              Int16Lanes(loading: w1 + (o &+ 16)))
          }
        } else {
          for t in 0..<count {
            let j = Int(list[t])
            let o = j &* 32
            sums.accumulate(
              Self.pair(x0, j).lanes, Self.pair(x1, j).lanes, Int16Lanes(loading: w0 + o),
              Int16Lanes(loading: w0 + (o &+ 16)))
          }
        }
        out.store(sums, channel: c, wide: wide) { epilogue($0) }
        c &+= wide ? 16 : 8
      }
      p &+= 2
    }
  }

  /// The accumulators of up to 16 output channels (two panels) of a pixel pair, `a` for the
  /// first pixel and `b` for the second: what the zero-skipping kernels sum into.
  struct PanelPairSums {
    var a0 = Int32Lanes()
    var a1 = Int32Lanes()
    var a2 = Int32Lanes()
    var a3 = Int32Lanes()
    var b0 = Int32Lanes()
    var b1 = Int32Lanes()
    var b2 = Int32Lanes()
    var b3 = Int32Lanes()

    /// Adds the products of the inputs `x` (first pixel) and `z` (second pixel) with one panel's
    /// two weight registers, `low` (outputs 0–3) and `high` (4–7).
    @inline(__always)
    mutating func accumulate(
      _ x: Int16Lanes, _ z: Int16Lanes, _ low: Int16Lanes, _ high: Int16Lanes
    ) {
      a0 &+= x.multipliedPairwise(by: low)
      a1 &+= x.multipliedPairwise(by: high)
      b0 &+= z.multipliedPairwise(by: low)
      b1 &+= z.multipliedPairwise(by: high)
    }

    /// The same for two panels: `low0`/`high0` and `low1`/`high1`.
    @inline(__always)
    mutating func accumulate(
      _ x: Int16Lanes, _ z: Int16Lanes, _ low0: Int16Lanes, _ high0: Int16Lanes,
      _ low1: Int16Lanes, _ high1: Int16Lanes
    ) {
      a0 &+= x.multipliedPairwise(by: low0)
      a1 &+= x.multipliedPairwise(by: high0)
      a2 &+= x.multipliedPairwise(by: low1)
      a3 &+= x.multipliedPairwise(by: high1)
      b0 &+= z.multipliedPairwise(by: low0)
      b1 &+= z.multipliedPairwise(by: high0)
      b2 &+= z.multipliedPairwise(by: low1)
      b3 &+= z.multipliedPairwise(by: high1)
    }
  }

  /// Where a pixel pair's outputs go: the output (and residual) rows of pixel `p` and of
  /// `second`, which is `p` again when `p` is the last pixel alone (its copy is not stored).
  struct PixelPairOutput {
    let first: UnsafeMutablePointer<Float>
    let second: UnsafeMutablePointer<Float>
    let firstResidual: UnsafePointer<Float>?
    let secondResidual: UnsafePointer<Float>?
    let storesSecond: Bool

    @inline(__always)
    init(
      _ p: Int, _ second: Int, output y: UnsafeMutablePointer<Float>,
      residual: UnsafePointer<Float>?, channels cout: Int
    ) {
      first = y + p &* cout
      self.second = y + second &* cout
      firstResidual = residual.map { $0 + p &* cout }
      secondResidual = residual.map { $0 + second &* cout }
      storesSecond = second != p
    }

    /// Finishes and stores the panel at output channel `c` of both pixels, and the next panel's
    /// when `wide`, through the epilogue `epilogue(channel)` gives.
    @inline(__always)
    func store(
      _ sums: PanelPairSums, channel c: Int, wide: Bool, _ epilogue: (Int) -> Epilogue
    ) {
      let e0 = epilogue(c)
      e0.store(sums.a0, sums.a1, to: first + c, residual: firstResidual.map { $0 + c })
      if storesSecond {
        e0.store(sums.b0, sums.b1, to: second + c, residual: secondResidual.map { $0 + c })
      }
      guard wide else { return }
      let c1 = c &+ 8
      let e1 = epilogue(c1)
      e1.store(sums.a2, sums.a3, to: first + c1, residual: firstResidual.map { $0 + c1 })
      if storesSecond {
        e1.store(sums.b2, sums.b3, to: second + c1, residual: secondResidual.map { $0 + c1 })
      }
    }
  }
}
