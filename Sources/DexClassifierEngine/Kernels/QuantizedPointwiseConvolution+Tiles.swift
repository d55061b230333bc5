extension QuantizedPointwiseConvolution {
  /// Pixels per tile of the dense kernel's input layout.
  static let tilePixels = 6

  /// The number of `Int16` values `pixels` input rows take in the tiled layout.
  ///
  /// The layout exists for the dense kernel's inner loop. Pixels go in tiles of
  /// ``tilePixels``; within a tile, pair `j` of pixel `k` sits at value `(j · 6 + k) · 8`, its two
  /// values repeated four times (16 bytes). The kernel then loads each pixel's pair already
  /// broadcast across the register, from one pointer at fixed offsets, instead of loading 32 bits
  /// and shuffling (SSE2 has no broadcast load, and every shuffle takes a vector port that the
  /// multiply-adds need). The price is four times the bytes of a compact row: about 170 KB for
  /// the rows one band adds, 1.6 MB for the largest whole expansion input. A last partial tile
  /// is padded with zeros; the kernel runs such a tile's real pixels one at a time and never
  /// reads the padding slots, the zeros only keep the buffer's contents deterministic.
  func tiledCount(pixels: Int) -> Int {
    (pixels + Self.tilePixels - 1) / Self.tilePixels * Self.tilePixels * pairedChannels * 4
  }

  /// Runs the convolution on `pixels` rows of a quantized input in the tiled layout (see
  /// ``tiledCount(pixels:)``), `x ≈ inputScale · q` with `|q| ≤` ``activationLimit``;
  /// otherwise as ``apply(_:pixels:into:residual:scratch:threads:)``.
  func apply(
    tiles: UnsafePointer<Int16>, inputScale: Float, pixels: Int,
    into output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>? = nil,
    threads: Int = 1
  ) {
    precondition(layout == .channelPairs, "a layer built for sparse input has no dense entry")
    withParameters { w, s, b in
      forEachChunk(of: pixels, threads: threads, multiple: Self.tilePixels) { range in
        run(
          tiles, pixels: range, weights: w, scales: s, inputScale: inputScale, bias: b,
          output: output, residual: residual)
      }
    }
  }

  /// The multiplier that quantizes `pixels` rows of `input` with one scale for the whole tensor
  /// (`q = round(x · multiplier)`, `|q| ≤` ``activationLimit``) and the scale it stands for
  /// (`x ≈ scale · q`).
  func quantization(
    of input: UnsafePointer<Float>, pixels: Int
  ) -> (multiplier: Float, scale: Float) {
    let largest = Self.largestMagnitude(input, count: pixels * inputChannels)
    guard largest > 0 else { return (0, 0) }
    return (Self.activationLimit / largest, largest / Self.activationLimit)
  }

  /// Quantizes `pixels` rows of `input` into `tiles` (the tiled layout, ``tiledCount(pixels:)``
  /// values) with one scale for the whole tensor and returns that scale for
  /// ``apply(tiles:inputScale:pixels:into:residual:threads:)``; `threads > 1` splits the rows.
  func quantize(
    _ input: UnsafePointer<Float>, pixels: Int, into tiles: UnsafeMutablePointer<Int16>,
    threads: Int = 1
  ) -> Float {
    let (multiplier, scale) = quantization(of: input, pixels: pixels)
    forEachChunk(of: pixels, threads: threads, multiple: Self.tilePixels) { rows in
      quantize(input, rows: rows, of: pixels, multiplier: multiplier, into: tiles)
    }
    return scale
  }

  /// Writes `round(x · multiplier)` for rows `rows` of a `pixels`-row input into `tiles`, and
  /// the zero padding of the last tile when `rows` ends the input.
  func quantize(
    _ x: UnsafePointer<Float>, rows: Range<Int>, of pixels: Int, multiplier: Float,
    into tiles: UnsafeMutablePointer<Int16>
  ) {
    let cin = inputChannels
    let pairs = pairedChannels / 2
    let limit = Self.activationLimit
    let m = Float4Lanes(repeating: multiplier)
    func scalar(_ value: Float) -> UInt32 {
      UInt32(
        truncatingIfNeeded: Int16(
          max(-limit, min(limit, (value * multiplier).rounded(.toNearestOrEven)))))
    }
    for p in rows {
      let slot = slot(of: p, pairs: pairs, in: tiles)
      let row = x + p &* cin
      var i = 0
      // Eight channels (four pairs) at a time, rounded and narrowed in one register.
      while i &+ 8 <= cin {
        var four = (UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        withUnsafeMutableBytes(of: &four) { bytes in
          guard let base = bytes.baseAddress else { return }
          Int16Lanes(
            rounding: Float4Lanes(loading: row + i) * m, Float4Lanes(loading: row + i + 4) * m
          )
          .store(to: base)
        }
        let j = i / 2
        Self.put(four.0, at: slot + j &* 48)
        Self.put(four.1, at: slot + (j &+ 1) &* 48)
        Self.put(four.2, at: slot + (j &+ 2) &* 48)
        Self.put(four.3, at: slot + (j &+ 3) &* 48)
        i &+= 8
      }
      while i < cin {
        let low = scalar(row[i]) & 0xFFFF
        let high = i &+ 1 < cin ? scalar(row[i &+ 1]) << 16 : 0
        Self.put(low | high, at: slot + (i / 2) &* 48)
        i &+= 2
      }
    }
    if rows.upperBound == pixels { padLastTile(of: pixels, in: tiles) }
  }

  /// Re-lays `pixels` compact rows (``pairedChannels`` values each, the layout the depthwise
  /// layer writes) out in tiles: the bridge the kernel tests use to run the dense kernel on the
  /// same quantized input as
  /// ``applySkippingZeros(quantized:inputScale:pixels:into:residual:threads:)``.
  func tile(
    _ q: UnsafePointer<Int16>, pixels: Int, into tiles: UnsafeMutablePointer<Int16>
  ) {
    let pairs = pairedChannels / 2
    for p in 0..<pixels {
      let slot = slot(of: p, pairs: pairs, in: tiles)
      let row = UnsafeRawPointer(q + p &* pairedChannels)
      for j in 0..<pairs {
        Self.put(row.loadUnaligned(fromByteOffset: j &* 4, as: UInt32.self), at: slot + j &* 48)
      }
    }
    padLastTile(of: pixels, in: tiles)
  }

  /// Where pair 0 of pixel `p` goes in a tiled buffer.
  @inline(__always)
  private func slot(
    of p: Int, pairs: Int, in tiles: UnsafeMutablePointer<Int16>
  ) -> UnsafeMutablePointer<Int16> {
    let tile = p / Self.tilePixels
    return tiles + (tile &* pairs &* Self.tilePixels &+ (p &- tile &* Self.tilePixels)) &* 8
  }

  /// Writes the pair `bits` four times at `destination`.
  @inline(__always)
  private static func put(_ bits: UInt32, at destination: UnsafeMutablePointer<Int16>) {
    Int16Lanes(repeatingPair: bits).store(to: UnsafeMutableRawPointer(destination))
  }

  /// Zeroes the unused pixel slots of the last tile of a `pixels`-row tiled input.
  private func padLastTile(of pixels: Int, in tiles: UnsafeMutablePointer<Int16>) {
    let pairs = pairedChannels / 2
    var p = pixels
    while p % Self.tilePixels != 0 {
      let slot = slot(of: p, pairs: pairs, in: tiles)
      for j in 0..<pairs { Self.put(0, at: slot + j &* 48) }
      p &+= 1
    }
  }

  @inline(__always)
  private func run(
    _ tiles: UnsafePointer<Int16>, pixels: Range<Int>, weights: UnsafePointer<Int16>,
    scales: UnsafePointer<Float>, inputScale: Float, bias: UnsafePointer<Float>,
    output y: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?
  ) {
    let pairs = pairedChannels / 2
    let cout = outputChannels
    let tileValues = pairs &* Self.tilePixels &* 8
    // Tiles are processed in blocks (about 8 KB of input, at least one tile) that stay in the L1
    // cache while every panel passes over them. The L1 cache is shared with the core's other
    // hardware thread: with other tenants busy on the host, blocks of 24 KB measured 1–2 %
    // slower than 4, 8 or 16 KB, whose weight panels are reread more often.
    let blockTiles = max(1, 4_096 / tileValues)
    let sx = Float4Lanes(repeating: inputScale)
    let plainReLU6 = clampsToReLU6 && residual == nil
    var first = pixels.lowerBound / Self.tilePixels
    let endTile = (pixels.upperBound + Self.tilePixels - 1) / Self.tilePixels
    while first < endTile {
      let last = min(first &+ blockTiles, endTile)
      for panel in 0..<(cout / 8) {
        let wp = UnsafeRawPointer(weights + panel &* pairs &* 16)
        let c = panel &* 8
        let epilogue = Epilogue(
          channel: c, scales: scales, inputScale: sx, bias: bias, relu6: clampsToReLU6)
        for tile in first..<last {
          let p = tile &* Self.tilePixels
          let valid = min(Self.tilePixels, pixels.upperBound &- p)
          @inline(__always) func store(_ k: Int, _ low: Int32Lanes, _ high: Int32Lanes) {
            let o = (p &+ k) &* cout &+ c
            epilogue.store(low, high, to: y + o, residual: residual.map { $0 + o })
          }
          if valid < Self.tilePixels {
            // A partial last tile (a 7×7 map has 49 pixels: eight tiles and one pixel): its real
            // pixels one at a time, so that the zero padding costs no multiply-adds.
            for k in 0..<valid {
              var low = Int32Lanes()
              var high = Int32Lanes()
              var x = UnsafeRawPointer(tiles + tile &* tileValues) + k &* 16
              var w = wp
              for _ in 0..<pairs {
                let xk = Int16Lanes(loading: x)
                low &+= xk.multipliedPairwise(by: Int16Lanes(loading: w))
                high &+= xk.multipliedPairwise(by: Int16Lanes(loading: w + 16))
                x += 96
                w += 32
              }
              store(k, low, high)
            }
            continue
          }
          var a0 = Int32Lanes()
          var a1 = Int32Lanes()
          var b0 = Int32Lanes()
          var b1 = Int32Lanes()
          var c0 = Int32Lanes()
          var c1 = Int32Lanes()
          var d0 = Int32Lanes()
          var d1 = Int32Lanes()
          var e0 = Int32Lanes()
          var e1 = Int32Lanes()
          var f0 = Int32Lanes()
          var f1 = Int32Lanes()
          var x = UnsafeRawPointer(tiles + tile &* tileValues)
          var w = wp
          for _ in 0..<pairs {
            let w0 = Int16Lanes(loading: w)
            let w1 = Int16Lanes(loading: w + 16)
            let x0 = Int16Lanes(loading: x)
            a0 &+= x0.multipliedPairwise(by: w0)
            a1 &+= x0.multipliedPairwise(by: w1)
            let x1 = Int16Lanes(loading: x + 16)
            b0 &+= x1.multipliedPairwise(by: w0)
            b1 &+= x1.multipliedPairwise(by: w1)
            let x2 = Int16Lanes(loading: x + 32)
            c0 &+= x2.multipliedPairwise(by: w0)
            c1 &+= x2.multipliedPairwise(by: w1)
            let x3 = Int16Lanes(loading: x + 48)
            d0 &+= x3.multipliedPairwise(by: w0)
            d1 &+= x3.multipliedPairwise(by: w1)
            let x4 = Int16Lanes(loading: x + 64)
            e0 &+= x4.multipliedPairwise(by: w0)
            e1 &+= x4.multipliedPairwise(by: w1)
            let x5 = Int16Lanes(loading: x + 80)
            f0 &+= x5.multipliedPairwise(by: w0)
            f1 &+= x5.multipliedPairwise(by: w1)
            x += 96
            w += 32
          }
          // A whole tile of an expansion (ReLU6, no residual): no test per pixel.
          if plainReLU6 {
            let out = y + (p &* cout &+ c)
            epilogue.storeReLU6(a0, a1, to: out)
            epilogue.storeReLU6(b0, b1, to: out + cout)
            epilogue.storeReLU6(c0, c1, to: out + 2 &* cout)
            epilogue.storeReLU6(d0, d1, to: out + 3 &* cout)
            epilogue.storeReLU6(e0, e1, to: out + 4 &* cout)
            epilogue.storeReLU6(f0, f1, to: out + 5 &* cout)
            continue
          }
          store(0, a0, a1)
          store(1, b0, b1)
          store(2, c0, c1)
          store(3, d0, d1)
          store(4, e0, e1)
          store(5, f0, f1)
        }
      }
      first = last
    }
  }
}
