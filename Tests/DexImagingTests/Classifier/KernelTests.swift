import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexClassifierEngine
@testable import DexImaging

/// The convolution kernels against straightforward reference loops on seeded random data: the
/// int16 1×1 convolution within its proven quantization error of the float one, and the blocked
/// depthwise and stem convolutions against direct sums, borders and odd sizes included.
@Suite(.offCooperativePool) struct KernelTests {
  /// `count` floats uniformly in `range`, reproducibly from `seed`.
  static func values(_ count: Int, in range: ClosedRange<Float>, seed: UInt64) -> [Float] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      let unit = Float(generator.next() >> 40) / Float(1 << 24)
      return range.lowerBound + unit * (range.upperBound - range.lowerBound)
    }
  }

  /// An int16 1×1 layer with pseudo-random weights in `weightsIn` and biases in `-1...1`, drawn
  /// from `seeds` (weights, bias).
  static func pointwise(
    _ cin: Int, _ cout: Int, weightsIn range: ClosedRange<Float> = -1...1,
    seeds: (weights: UInt64, bias: UInt64), relu6: Bool = false
  ) throws -> QuantizedPointwiseConvolution {
    try #require(
      QuantizedPointwiseConvolution(
        weights: values(cin * cout, in: range, seed: seeds.weights),
        bias: values(cout, in: -1...1, seed: seeds.bias), inputChannels: cin,
        outputChannels: cout, relu6: relu6))
  }

  /// Calls `apply` with `input` and room for `count` outputs (NaN until written), and returns
  /// the outputs: a layer's float entry run on an array.
  static func output(
    count: Int, from input: [Float],
    _ apply: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void
  ) -> [Float] {
    var output = [Float](repeating: .nan, count: count)
    input.withUnsafeBufferPointer { x in
      output.withUnsafeMutableBufferPointer { y in apply(x.baseAddress!, y.baseAddress!) }
    }
    return output
  }

  /// Runs the int16 layer on `input` (`pixels × cin`), optionally with a residual.
  static func quantized(
    _ layer: QuantizedPointwiseConvolution, _ input: [Float], pixels: Int,
    residual: [Float]? = nil, threads: Int = 1
  ) -> [Float] {
    let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: layer.scratchCount(pixels: pixels))
    defer { scratch.deallocate() }
    return output(count: pixels * layer.outputChannels, from: input) { x, y in
      if let residual {
        residual.withUnsafeBufferPointer { r in
          layer.apply(
            x, pixels: pixels, into: y, residual: r.baseAddress, scratch: scratch, threads: threads)
        }
      } else {
        layer.apply(x, pixels: pixels, into: y, scratch: scratch, threads: threads)
      }
    }
  }

  @Test(arguments: [
    (16, 96, 37, false, true), (7, 8, 5, false, false), (24, 144, 4, true, false),
    (1152, 192, 49, true, false), (320, 1280, 9, false, true), (40, 240, 3, false, true),
    (13, 16, 11, false, true), (12, 24, 7, true, false),
  ])
  func int16PointwiseStaysWithinItsQuantizationError(
    cin: Int, cout: Int, pixels: Int, withResidual: Bool, relu: Bool
  ) throws {
    let weights = Self.values(cin * cout, in: -0.5...0.5, seed: UInt64(cin * 7919 + cout))
    let bias = Self.values(cout, in: -1...1, seed: 11)
    let input = Self.values(pixels * cin, in: -3...6, seed: UInt64(pixels))
    let residual = withResidual ? Self.values(pixels * cout, in: -2...2, seed: 5) : nil
    let layer = try #require(
      QuantizedPointwiseConvolution(
        weights: weights, bias: bias, inputChannels: cin, outputChannels: cout, relu6: relu))
    let got = Self.quantized(layer, input, pixels: pixels, residual: residual)

    let largest = input.map(abs).max() ?? 0
    let sx = largest / QuantizedPointwiseConvolution.activationLimit
    var worst: Float = 0
    var beyond = Mismatches()
    for p in 0..<pixels {
      for o in 0..<cout {
        var exact = Double(bias[o])
        var bound = 0.0
        let sw = Double(layer.weightScales[o])
        for i in 0..<cin {
          let x = Double(input[p * cin + i])
          let w = Double(weights[i * cout + o])
          exact += x * w
          // |x·w − x̂·ŵ| ≤ |w|·sx/2 + (|x| + sx/2)·sw/2 for round-to-nearest x̂ and ŵ.
          bound += abs(w) * Double(sx) / 2 + (abs(x) + Double(sx) / 2) * sw / 2
        }
        if let residual { exact += Double(residual[p * cout + o]) }
        if relu { exact = min(max(exact, 0), 6) }
        let error = abs(Double(got[p * cout + o]) - exact)
        beyond.check(
          error <= bound + 1e-4, "pixel \(p) channel \(o): error \(error) > bound \(bound)")
        worst = max(worst, Float(error))
      }
    }
    beyond.expectNone("int16 against float64")
    #expect(worst > 0, "a quantized result identical to float64 would mean nothing was quantized")
  }

  @Test func int16PointwiseGivesTheSameBitsOnTwoThreads() throws {
    let (cin, cout, pixels) = (96, 24, 203)
    let layer = try Self.pointwise(cin, cout, seeds: (3, 4))
    let input = Self.values(pixels * cin, in: 0...6, seed: 9)
    let one = Self.quantized(layer, input, pixels: pixels, threads: 1)
    let two = Self.quantized(layer, input, pixels: pixels, threads: 2)
    Mismatches.bits(two, one).expectNone("two threads against one")
  }

  /// An input handed over already quantized (as the depthwise layer does, to the zero-skipping
  /// entry) gives the same bits as the same values handed over as floats and quantized by the
  /// layer itself.
  @Test func int16PointwiseOnAQuantizedInputMatchesTheFloatEntry() throws {
    let (cin, cout, pixels) = (96, 24, 37)
    let layer = try Self.pointwise(cin, cout, seeds: (12, 13))
    let scale = QuantizedPointwiseConvolution.reluInputScale
    var q = Self.values(pixels * cin, in: 0...4095, seed: 14).map { Int16($0.rounded()) }
    q[17] = 4095  // the largest magnitude fixes the layer's own scale at exactly `scale`
    let floats = q.map { Float($0) * scale }
    // The scale the float entry derives (`max|x| / 4095`), which may differ from `scale` in the
    // last bit.
    let derived = (floats.max() ?? 0) / QuantizedPointwiseConvolution.activationLimit
    let residual = Self.values(pixels * cout, in: -2...2, seed: 15)
    let viaFloats = Self.quantized(layer, floats, pixels: pixels, residual: residual)
    var viaQuantized = [Float](repeating: .nan, count: pixels * cout)
    q.withUnsafeBufferPointer { q in
      residual.withUnsafeBufferPointer { r in
        viaQuantized.withUnsafeMutableBufferPointer { y in
          layer.applySkippingZeros(
            quantized: q.baseAddress!, inputScale: derived, pixels: pixels, into: y.baseAddress!,
            residual: r.baseAddress!, threads: 2)
        }
      }
    }
    Mismatches.bits(viaQuantized, viaFloats).expectNone("quantized entry against float entry")
  }

  /// Skipping zeros gives exactly the dense kernel's bits, by pairs (fewer than 80 outputs) and
  /// by single channels (80 or more): about six in ten values zero (as in a real ReLU6 output),
  /// an all-zero pixel next to one with a single nonzero value (an odd channel list), an odd
  /// pixel count (the last pixel alone), 8 or 16 output channels left after the 16-wide panels,
  /// odd input channels (a padding lane), a pair or channel count that is not a multiple of the
  /// list's vector width (its scalar tail), with and without residual and ReLU6, on one and two
  /// threads.
  @Test(arguments: [
    (96, 24, 37, false, false), (144, 40, 20, true, false), (240, 80, 9, false, true),
    (7, 16, 5, true, true), (1152, 192, 49, false, false), (672, 112, 1, true, false),
    (30, 16, 11, false, true), (30, 88, 11, true, true), (7, 80, 6, false, false),
    (1152, 320, 7, true, false),
  ])
  func skippingZerosGivesTheDenseBits(
    cin: Int, cout: Int, pixels: Int, withResidual: Bool, relu: Bool
  ) throws {
    let weights = Self.values(cin * cout, in: -1...1, seed: UInt64(cin))
    let bias = Self.values(cout, in: -1...1, seed: UInt64(cout))
    let layer = try #require(
      QuantizedPointwiseConvolution(
        weights: weights, bias: bias, inputChannels: cin, outputChannels: cout, relu6: relu))
    let sparseLayer = try #require(
      QuantizedPointwiseConvolution(
        weights: weights, bias: bias, inputChannels: cin, outputChannels: cout, relu6: relu,
        sparseInput: true))
    #expect(
      sparseLayer.layout
        == (cout >= QuantizedPointwiseConvolution.channelSkippingMinimumOutputs
          ? .channelRows : .channelPairs))
    let row = layer.pairedChannels
    var random = SeededGenerator(seed: UInt64(cin * 31 + pixels))
    var q = [Int16](repeating: 0, count: pixels * row)
    for p in 0..<pixels where p != 3 {
      for i in 0..<cin where p == 2 ? i == cin - 1 : random.next() % 10 >= 6 {
        q[p * row + i] = Int16(random.next() % 4095 + 1)
      }
    }
    let zeroPairs = (0..<(pixels * row / 2)).filter { q[2 * $0] == 0 && q[2 * $0 + 1] == 0 }
    #expect(zeroPairs.count > pixels * row / 8, "the input should have many zero pairs")
    let residual = withResidual ? Self.values(pixels * cout, in: -2...2, seed: 21) : nil
    func run(sparse: Bool, threads: Int) -> [Float] {
      var y = [Float](repeating: .nan, count: pixels * cout)
      q.withUnsafeBufferPointer { q in
        (residual ?? [0]).withUnsafeBufferPointer { r in
          y.withUnsafeMutableBufferPointer { y in
            let r = residual == nil ? nil : r.baseAddress
            if sparse {
              sparseLayer.applySkippingZeros(
                quantized: q.baseAddress!, inputScale: 0.002, pixels: pixels,
                into: y.baseAddress!, residual: r, threads: threads)
            } else {
              // The dense kernel on the same values, re-laid out in tiles.
              let tiles = UnsafeMutablePointer<Int16>.allocate(
                capacity: layer.tiledCount(pixels: pixels))
              defer { tiles.deallocate() }
              layer.tile(q.baseAddress!, pixels: pixels, into: tiles)
              layer.apply(
                tiles: tiles, inputScale: 0.002, pixels: pixels, into: y.baseAddress!,
                residual: r, threads: threads)
            }
          }
        }
      }
      return y
    }
    let dense = run(sparse: false, threads: 1)
    #expect(!dense.contains { $0.isNaN })
    Mismatches.bits(run(sparse: true, threads: 1), dense).expectNone("sparse, one thread")
    Mismatches.bits(run(sparse: true, threads: 2), dense).expectNone("sparse, two threads")
  }

  /// The worst case for 32-bit accumulators: every weight and every input at its largest
  /// magnitude with the same sign, over the network's widest layer. A wrapped sum would be off
  /// by billions.
  @Test(arguments: [Float(1), -1])
  func int16PointwiseCannotOverflow(sign: Float) throws {
    let (cin, cout, pixels) = (1152, 8, 5)
    let layer = try #require(
      QuantizedPointwiseConvolution(
        weights: [Float](repeating: 0.75, count: cin * cout),
        bias: [Float](repeating: 0, count: cout),
        inputChannels: cin, outputChannels: cout, relu6: false))
    let got = Self.quantized(
      layer, [Float](repeating: 6 * sign, count: pixels * cin), pixels: pixels)
    let expected = 6 * 0.75 * Float(cin) * sign
    var off = Mismatches()
    for (i, value) in got.enumerated() {
      off.check(abs(value - expected) <= abs(expected) * 1e-3, "[\(i)] \(value)")
    }
    off.expectNone("sums of \(expected)")
  }

  @Test func int16PointwiseOnZeroInputGivesTheBias() throws {
    let bias: [Float] = [-1, 0, 0.5, 2, 7, -3, 6, 1]
    let layer = try #require(
      QuantizedPointwiseConvolution(
        weights: Self.values(16 * 8, in: -1...1, seed: 1), bias: bias, inputChannels: 16,
        outputChannels: 8, relu6: true))
    let got = Self.quantized(layer, [Float](repeating: 0, count: 3 * 16), pixels: 3)
    #expect(got == Array([[Float]](repeating: bias.map { min(max($0, 0), 6) }, count: 3).joined()))
  }

  @Test func int16PointwiseRejectsInconsistentWeights() {
    let nine = [Float](repeating: 1, count: 9)
    #expect(
      QuantizedPointwiseConvolution(
        weights: [Float](repeating: 1, count: 16), bias: nine, inputChannels: 2, outputChannels: 9,
        relu6: false) == nil)
    var poisoned = [Float](repeating: 1, count: 16)
    poisoned[3] = .nan
    #expect(
      QuantizedPointwiseConvolution(
        weights: poisoned, bias: [Float](repeating: 0, count: 8), inputChannels: 2,
        outputChannels: 8, relu6: false) == nil)
  }

  @Test(arguments: [
    (7, 7, 16, 5, 1), (14, 14, 8, 5, 2), (9, 13, 24, 3, 1), (10, 10, 8, 3, 2), (1, 1, 8, 3, 1),
    (5, 6, 8, 5, 2), (3, 22, 8, 3, 1), (7, 7, 48, 5, 1), (6, 9, 64, 3, 2),
    // Interior runs of 7, 9 and 26 columns: groups of six and four, and lone columns.
    (3, 9, 8, 3, 1), (4, 11, 16, 3, 1), (5, 30, 8, 5, 1),
  ])
  func depthwiseMatchesDirectSums(
    height: Int, width: Int, channels: Int, kernel: Int, stride: Int
  )
    throws
  {
    let weights = Self.values(kernel * kernel * channels, in: -1...1, seed: UInt64(height * width))
    let bias = Self.values(channels, in: -1...1, seed: 2)
    let input = Self.values(height * width * channels, in: -2...3, seed: 8)
    let layer = try #require(
      DepthwiseConvolution(
        weights: weights, bias: bias, channels: channels, kernel: kernel, stride: stride))
    let windows = SameWindows(height: height, width: width, kernel: kernel, stride: stride)
    let got = Self.output(count: windows.outputPixels * channels, from: input) { x, y in
      let size = layer.apply(x, height: height, width: width, into: .floats(y))
      #expect(size.height == windows.outputHeight && size.width == windows.outputWidth)
    }
    // The same layer writing 16-bit integers for an int16 projection, on two threads.
    let multiplier = 1 / QuantizedPointwiseConvolution.reluInputScale
    var quantized = [Int16](repeating: .min, count: windows.outputPixels * channels)
    input.withUnsafeBufferPointer { x in
      quantized.withUnsafeMutableBufferPointer { q in
        _ = layer.apply(
          x.baseAddress!, height: height, width: width,
          into: .quantizedReLU6(q.baseAddress!), threads: 2)
      }
    }
    var floatsOff = Mismatches()
    var quantizedOff = Mismatches()
    windows.forEachOutput { oy, ox, taps in
      for c in 0..<channels {
        var sum = bias[c]
        for (pixel, tap) in taps {
          sum += input[pixel * channels + c] * weights[tap * channels + c]
        }
        let expected = min(max(sum, 0), 6)
        let value = got[(oy * windows.outputWidth + ox) * channels + c]
        floatsOff.check(
          abs(value - expected) <= 1e-4, "(\(oy), \(ox), \(c)): \(value) vs \(expected)")
        let q = Float(quantized[(oy * windows.outputWidth + ox) * channels + c])
        quantizedOff.check(
          abs(q - expected * multiplier) <= 0.55, "(\(oy), \(ox), \(c)): \(q) vs \(expected)")
      }
    }
    floatsOff.expectNone("floats against direct sums")
    quantizedOff.expectNone("int16 output against direct sums")
  }

  /// An int16 block run band by band gives the same bits as layer by layer, whatever the band
  /// size: one output row per band (the most overlap), a few, and the whole tensor.
  @Test(arguments: [
    (9, 11, 3, 1, true), (12, 10, 3, 2, false), (9, 8, 5, 1, true), (11, 13, 5, 2, false),
  ])
  func bandsGiveTheSameBitsAsLayers(
    height: Int, width: Int, kernel: Int, stride: Int, withResidual: Bool
  ) throws {
    let (cin, expanded, cout) = (16, 48, withResidual ? 16 : 24)
    let expand = try Self.pointwise(
      cin, expanded, weightsIn: -0.5...0.5, seeds: (41, 42), relu6: true)
    let depthwise = try #require(
      DepthwiseConvolution(
        weights: Self.values(kernel * kernel * expanded, in: -1...1, seed: 43),
        bias: Self.values(expanded, in: -1...1, seed: 44), channels: expanded, kernel: kernel,
        stride: stride))
    let project = try Self.pointwise(expanded, cout, weightsIn: -0.5...0.5, seeds: (45, 46))
    let block = EfficientNetLite0.MBConvBlock(
      expand: .int16(expand), depthwise: depthwise, project: .int16(project),
      hasResidual: withResidual)
    let input = Self.values(height * width * cin, in: -4...4, seed: 47)
    let windows = SameWindows(height: height, width: width, kernel: kernel, stride: stride)
    let (oh, ow) = (windows.outputHeight, windows.outputWidth)
    let scale = QuantizedPointwiseConvolution.reluInputScale

    // Layer by layer, as the multi-threaded forward pass runs it.
    let scratch = UnsafeMutablePointer<Int16>.allocate(
      capacity: max(expand.scratchCount(pixels: height * width), oh * ow * expanded))
    defer { scratch.deallocate() }
    let expandedFloats = Self.output(count: height * width * expanded, from: input) { x, e in
      expand.apply(x, pixels: height * width, into: e, scratch: scratch)
    }
    var layered = [Float](repeating: .nan, count: oh * ow * cout)
    expandedFloats.withUnsafeBufferPointer { e in
      _ = depthwise.apply(
        e.baseAddress!, height: height, width: width,
        into: .quantizedReLU6(scratch))
    }
    input.withUnsafeBufferPointer { x in
      layered.withUnsafeMutableBufferPointer { y in
        project.applySkippingZeros(
          quantized: scratch, inputScale: scale, pixels: oh * ow, into: y.baseAddress!,
          residual: withResidual ? x.baseAddress! : nil)
      }
    }

    let row = width * expanded
    for capacity in [kernel * row, (kernel + 2 * stride) * row, height * row] {
      var banded = [Float](repeating: .nan, count: oh * ow * cout)
      // Exactly the documented room for the rows one band adds, then a canary that must stay
      // untouched.
      let room = expand.scratchCount(pixels: min(height, capacity / row) * width)
      let canary = 4096
      let quantizedInput = UnsafeMutablePointer<Int16>.allocate(capacity: room + canary)
      quantizedInput.initialize(repeating: 0x5A5A, count: room + canary)
      let band = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
      defer {
        quantizedInput.deallocate()
        band.deallocate()
      }
      let size = input.withUnsafeBufferPointer { x in
        banded.withUnsafeMutableBufferPointer { y in
          block.applyInBands(
            expand: expand, project: project, x.baseAddress!, height: height, width: width,
            quantizedInput: quantizedInput, band: band, bandCapacity: capacity,
            quantizedOutput: scratch, into: y.baseAddress!,
            residual: withResidual ? x.baseAddress! : nil)
        }
      }
      #expect(size.height == oh && size.width == ow)
      let differing = zip(banded, layered).filter { $0.bitPattern != $1.bitPattern }.count
      #expect(differing == 0, "bands of \(capacity / row) rows: \(differing) values differ")
      let overwritten = (room..<(room + canary)).filter { quantizedInput[$0] != 0x5A5A }.count
      #expect(overwritten == 0, "bands of \(capacity / row) rows wrote past the documented room")
    }

    // Workers that each take a range of output rows, in buffers of their own, on two and three
    // threads.
    for workers in [2, 3] {
      let capacity = (kernel + stride) * row
      let quantization = input.withUnsafeBufferPointer {
        expand.quantization(of: $0.baseAddress!, pixels: height * width)
      }
      let bands = (0..<workers).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity)
      }
      let inputs = (0..<workers).map { _ in
        UnsafeMutablePointer<Int16>.allocate(capacity: expand.scratchCount(pixels: height * width))
      }
      defer {
        for buffer in bands { buffer.deallocate() }
        for buffer in inputs { buffer.deallocate() }
      }
      var banded = [Float](repeating: .nan, count: oh * ow * cout)
      input.withUnsafeBufferPointer { x in
        banded.withUnsafeMutableBufferPointer { y in
          let (x, y) = (x.baseAddress!, y.baseAddress!)
          forEachChunk(of: oh, threads: workers, multiple: 1) { worker, rows in
            block.applyInBands(
              expand: expand, project: project, x, height: height, width: width, outRows: rows,
              quantization: quantization, quantizedInput: inputs[worker], band: bands[worker],
              bandCapacity: capacity, quantizedOutput: scratch, into: y,
              residual: withResidual ? x : nil)
          }
        }
      }
      let differing = zip(banded, layered).filter { $0.bitPattern != $1.bitPattern }.count
      #expect(differing == 0, "\(workers) workers: \(differing) values differ")
    }
  }

  /// Odd sizes pad both sides on stride 2; even sizes (as the network's 224) pad only the bottom
  /// and right. 40, 48 and 56 channels end in a partial group of 32.
  @Test(arguments: [(32, 17, 15), (40, 17, 15), (32, 16, 14), (40, 2, 3), (48, 5, 4), (56, 4, 5)])
  func stemMatchesDirectSums(outputChannels: Int, height: Int, width: Int) throws {
    let (k, stride) = (3, 2)
    let (shape, weights, bias, input) = try Self.stemData(
      outputChannels: outputChannels, kernel: k, stride: stride, height: height, width: width,
      seed: 21)
    let layer = try #require(StemConvolution(shape, weights: weights, bias: bias))
    let windows = SameWindows(height: height, width: width, kernel: k, stride: stride)
    let got = Self.output(count: windows.outputPixels * outputChannels, from: input) { x, y in
      _ = layer.apply(x, height: height, width: width, into: y)
    }
    var off = Mismatches()
    windows.forEachOutput { oy, ox, taps in
      for o in 0..<outputChannels {
        var sum = bias[o]
        for (pixel, tap) in taps {
          for c in 0..<3 {
            sum += input[pixel * 3 + c] * weights[(tap * 3 + c) * outputChannels + o]
          }
        }
        let expected = min(max(sum, 0), 6)
        let value = got[(oy * windows.outputWidth + ox) * outputChannels + o]
        off.check(abs(value - expected) <= 1e-4, "(\(oy), \(ox), \(o)): \(value) vs \(expected)")
      }
    }
    off.expectNone("stem against direct sums")
  }

  /// The int16 stem against sums computed here from the layer's own quantized weights and the
  /// input quantized the same way: the same bits (the padded copy, the row pairs, the packing and
  /// the epilogue), and within the quantization error of the float sums. Kernel 2 has rows of an
  /// even count; odd sizes pad both sides on stride 2.
  @Test(arguments: [
    (32, 17, 15, 3), (40, 17, 15, 3), (32, 16, 14, 3), (40, 2, 3, 3), (48, 5, 4, 3),
    (56, 4, 5, 3), (32, 9, 8, 2), (8, 1, 1, 3),
  ])
  func int16StemMatchesIntegerSums(
    outputChannels: Int, height: Int, width: Int, kernel k: Int
  ) throws {
    let stride = 2
    let (shape, weights, bias, input) = try Self.stemData(
      outputChannels: outputChannels, kernel: k, stride: stride, height: height, width: width,
      seed: 31)
    let layer = try #require(QuantizedStemConvolution(shape, weights: weights, bias: bias))
    let got = Self.stem(layer, input, height: height, width: width, threads: 1)
    let windows = SameWindows(height: height, width: width, kernel: k, stride: stride)
    #expect(got.count == windows.outputPixels * outputChannels)

    let limit = QuantizedPointwiseConvolution.activationLimit
    let largest = input.map(abs).max() ?? 0
    let (multiplier, sx) = (limit / largest, largest / limit)
    let q = input.map {
      Int64(max(-limit, min(limit, ($0 * multiplier).rounded(.toNearestOrEven))))
    }
    let panels = layer.shape.paddedChannels / 8
    // Value `slot` (kx · 3 + channel) of kernel row `ky`, output `o`, from the packed registers.
    func v(_ ky: Int, _ slot: Int, _ o: Int) -> Int64 {
      let pair = ky * layer.rowPairs + slot / 2
      let (half, lane) = ((o % 8) / 4, (o % 4) * 2 + slot % 2)
      return Int64(layer.packedWeights[(pair * panels + o / 8) * 2 + half][lane])
    }
    var off = Mismatches()
    var beyond = Mismatches()
    windows.forEachOutput { oy, ox, taps in
      for o in 0..<outputChannels {
        var sum: Int64 = 0
        var exact = Double(bias[o])
        var bound = 0.0
        let sw = Double(layer.weightScales[o])
        for (pixel, tap) in taps {
          let (ky, kx) = (tap / k, tap % k)
          for c in 0..<3 {
            sum += q[pixel * 3 + c] * v(ky, kx * 3 + c, o)
            let x = Double(input[pixel * 3 + c])
            let w = Double(weights[(tap * 3 + c) * outputChannels + o])
            exact += x * w
            bound += abs(w) * Double(sx) / 2 + (abs(x) + Double(sx) / 2) * sw / 2
          }
        }
        let scaled = Float(Int32(sum)) * (layer.weightScales[o] * sx) + bias[o]
        let expected = min(max(scaled, 0), 6)
        let value = got[(oy * windows.outputWidth + ox) * outputChannels + o]
        off.check(
          value.bitPattern == expected.bitPattern, "(\(oy), \(ox), \(o)): \(value) vs \(expected)")
        let error = abs(Double(value) - min(max(exact, 0), 6))
        beyond.check(error <= bound + 1e-5, "(\(oy), \(ox), \(o)): error \(error) > \(bound)")
      }
    }
    off.expectNone("int16 stem against integer sums")
    beyond.expectNone("int16 stem against float64")
  }

  @Test func int16StemGivesTheSameBitsOnTwoThreads() throws {
    let (channels, height, width) = (32, 29, 23)
    let (shape, weights, bias, input) = try Self.stemData(
      outputChannels: channels, kernel: 3, stride: 2, height: height, width: width, seed: 41)
    let layer = try #require(QuantizedStemConvolution(shape, weights: weights, bias: bias))
    let one = Self.stem(layer, input, height: height, width: width, threads: 1)
    let two = Self.stem(layer, input, height: height, width: width, threads: 2)
    Mismatches.bits(two, one).expectNone("two threads against one")
  }

  @Test func int16StemOnZeroInputGivesTheBiasAndRejectsBadWeights() throws {
    let bias: [Float] = [-1, 0, 0.5, 2, 7, -3, 6, 1]
    let weights = Self.values(27 * 8, in: -1...1, seed: 1)
    let shape = try #require(StemShape(outputChannels: 8, kernel: 3, stride: 2))
    let layer = try #require(QuantizedStemConvolution(shape, weights: weights, bias: bias))
    let got = Self.stem(layer, [Float](repeating: 0, count: 4 * 4 * 3), height: 4, width: 4)
    let clamped = bias.map { min(max($0, 0), 6) }
    #expect(got == Array([[Float]](repeating: clamped, count: 4).joined()))
    var infinite = [Float](repeating: 0.5, count: 27 * 8)
    infinite[5] = .infinity
    #expect(QuantizedStemConvolution(shape, weights: infinite, bias: bias) == nil)
    // Counts that are not the shape's, in either stem; 12 channels are not groups of eight.
    #expect(QuantizedStemConvolution(shape, weights: Array(weights.dropLast()), bias: bias) == nil)
    #expect(StemConvolution(shape, weights: weights, bias: bias + [0]) == nil)
    #expect(StemShape(outputChannels: 12, kernel: 3, stride: 2) == nil)
  }

  /// A stem test's seeded data, all in `-1...1`: weights laid out
  /// `[kernel][kernel][3][outputChannels]` (from `seed`), a bias per output channel (`seed + 1`),
  /// their checked shape, and an `height × width × 3` input (`seed + 2`).
  static func stemData(
    outputChannels: Int, kernel: Int, stride: Int, height: Int, width: Int, seed: UInt64
  ) throws -> (shape: StemShape, weights: [Float], bias: [Float], input: [Float]) {
    let weights = values(kernel * kernel * 3 * outputChannels, in: -1...1, seed: seed)
    let bias = values(outputChannels, in: -1...1, seed: seed + 1)
    let shape = try #require(
      StemShape(outputChannels: outputChannels, kernel: kernel, stride: stride))
    return (shape, weights, bias, values(height * width * 3, in: -1...1, seed: seed + 2))
  }

  /// Runs the int16 stem on an `height × width × 3` input.
  static func stem(
    _ layer: QuantizedStemConvolution, _ input: [Float], height: Int, width: Int,
    threads: Int = 1
  ) -> [Float] {
    let windows = SameWindows(
      height: height, width: width, kernel: layer.shape.kernel, stride: layer.shape.stride)
    let count = layer.scratchCount(height: height, width: width)
    let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: count)
    defer { scratch.deallocate() }
    // Garbage in the scratch: the layer must write every value it reads, padding included.
    scratch.initialize(repeating: 0x5A5A, count: count)
    return output(count: windows.outputPixels * layer.shape.outputChannels, from: input) { x, y in
      _ = layer.apply(
        x, height: height, width: width, into: y, scratch: scratch, threads: threads)
    }
  }
}
