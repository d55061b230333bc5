@testable import DexClassifierEngine

/// The TF-SAME windows of a square `kernel × kernel`, `stride` convolution over a
/// `height × width` input: the output size, the padding, and which input pixels each output
/// pixel reads.
///
/// Why it exists: the kernel tests check the depthwise and stem kernels against direct sums
/// written here, and each of them needs the same geometry; one statement of it keeps their
/// reference loops about the arithmetic.
struct SameWindows {
  /// Input rows.
  let height: Int
  /// Input columns.
  let width: Int
  /// Kernel side.
  let kernel: Int
  /// Stride.
  let stride: Int
  /// Output rows.
  let outputHeight: Int
  /// Output columns.
  let outputWidth: Int
  /// Zero rows above the input.
  let top: Int
  /// Zero columns left of the input.
  let left: Int

  init(height: Int, width: Int, kernel: Int, stride: Int) {
    self.height = height
    self.width = width
    self.kernel = kernel
    self.stride = stride
    (outputHeight, top) = DepthwiseConvolution.samePadding(
      input: height, kernel: kernel, stride: stride)
    (outputWidth, left) = DepthwiseConvolution.samePadding(
      input: width, kernel: kernel, stride: stride)
  }

  /// Output pixels (`outputHeight · outputWidth`).
  var outputPixels: Int { outputHeight * outputWidth }

  /// The taps of output pixel (`oy`, `ox`) that fall inside the input: the input pixel index
  /// `iy · width + ix` and the tap index `ky · kernel + kx`.
  func taps(_ oy: Int, _ ox: Int) -> [(pixel: Int, tap: Int)] {
    var taps: [(pixel: Int, tap: Int)] = []
    for ky in 0..<kernel {
      for kx in 0..<kernel {
        let iy = oy * stride - top + ky
        let ix = ox * stride - left + kx
        if (0..<height).contains(iy), (0..<width).contains(ix) {
          taps.append((iy * width + ix, ky * kernel + kx))
        }
      }
    }
    return taps
  }

  /// Calls `body` for every output pixel, row by row, with its row, its column and its taps
  /// (see ``taps(_:_:)``).
  func forEachOutput(_ body: (_ oy: Int, _ ox: Int, _ taps: [(pixel: Int, tap: Int)]) -> Void) {
    for oy in 0..<outputHeight {
      for ox in 0..<outputWidth {
        body(oy, ox, taps(oy, ox))
      }
    }
  }
}
