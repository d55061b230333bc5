/// A few horizontally neighbouring output pixels of a depthwise convolution, eight channels
/// each, that share every weight load.
///
/// A float multiply-add chain waits on its own previous addition, so the kernel keeps several
/// chains in flight: each pixel of a group brings two (eight channels in two 4-wide vectors).
/// Six pixels (twelve chains, two weight vectors and a temporary: fifteen of the sixteen SSE
/// registers) issue the fewest instructions per multiply-add; four cover what is left of a row.
protocol DepthwisePixelGroup {
  /// Pixels in the group.
  static var count: Int { get }
  /// Every pixel's accumulators set to the eight biases at `b`.
  init(bias b: UnsafePointer<Float>)
  /// Adds one tap: `w[0..<8]` times the eight channels at `x + pixel · step` for each pixel.
  mutating func accumulate(_ w: UnsafePointer<Float>, _ x: UnsafePointer<Float>, step: Int)
  /// Calls `body` with each pixel's index and accumulators, in order.
  func forEach(_ body: (Int, FloatOctet) -> Void)
}

/// Four neighbouring depthwise output pixels (eight accumulator chains).
struct FourPixels: DepthwisePixelGroup {
  static var count: Int { 4 }
  var a0: FloatOctet
  var a1: FloatOctet
  var a2: FloatOctet
  var a3: FloatOctet

  @inline(__always)
  init(bias b: UnsafePointer<Float>) {
    a0 = FloatOctet(bias: b)
    (a1, a2, a3) = (a0, a0, a0)
  }

  @inline(__always)
  mutating func accumulate(_ w: UnsafePointer<Float>, _ x: UnsafePointer<Float>, step: Int) {
    a0.accumulate(w, x)
    a1.accumulate(w, x + step)
    a2.accumulate(w, x + (2 &* step))
    a3.accumulate(w, x + (3 &* step))
  }

  @inline(__always)
  func forEach(_ body: (Int, FloatOctet) -> Void) {
    body(0, a0)
    body(1, a1)
    body(2, a2)
    body(3, a3)
  }
}

/// Six neighbouring depthwise output pixels (twelve accumulator chains): a group of four and
/// two more.
struct SixPixels: DepthwisePixelGroup {
  static var count: Int { 6 }
  var firstFour: FourPixels
  var a4: FloatOctet
  var a5: FloatOctet

  @inline(__always)
  init(bias b: UnsafePointer<Float>) {
    firstFour = FourPixels(bias: b)
    (a4, a5) = (firstFour.a0, firstFour.a0)
  }

  @inline(__always)
  mutating func accumulate(_ w: UnsafePointer<Float>, _ x: UnsafePointer<Float>, step: Int) {
    firstFour.accumulate(w, x, step: step)
    a4.accumulate(w, x + (4 &* step))
    a5.accumulate(w, x + (5 &* step))
  }

  @inline(__always)
  func forEach(_ body: (Int, FloatOctet) -> Void) {
    firstFour.forEach(body)
    body(4, a4)
    body(5, a5)
  }
}
