import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

@Suite(.offCooperativePool) struct ImagePreprocessorTests {
  @Test(arguments: [
    (256, 256, 16, 16, 224), (640, 480, 110, 30, 420), (1, 1, 0, 0, 1), (300, 7, 147, 0, 6),
  ])
  func centreCrop(width: Int, height: Int, x: Int, y: Int, side: Int) {
    let crop = ImagePreprocessor().cropRegion(width: width, height: height)
    #expect(crop.x == x && crop.y == y && crop.side == side)
  }

  @Test func constantImageStaysConstant() throws {
    let image = try #require(
      RGBImage(
        width: 300, height: 200,
        pixels: [UInt8](repeating: 0, count: 300 * 200 * 3).enumerated().map {
          [UInt8(255), 127, 0][$0.offset % 3]
        }))
    let input = ImagePreprocessor().networkInput(from: image)
    #expect(input.count == 224 * 224 * 3)
    let expected: [Float] = [1, 0, -127.0 / 128.0]
    let worst = input.indices.map { abs(input[$0] - expected[$0 % 3]) }.max() ?? .infinity
    #expect(worst < 1e-5)
  }

  @Test func takesTheCentreAndKeepsOrientation() throws {
    // Left half black, right half white: after the crop the left edge is dark, the right bright.
    let width = 400
    let height = 256
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in (width / 2)..<width {
        for c in 0..<3 { pixels[(y * width + x) * 3 + c] = 255 }
      }
    }
    let input = ImagePreprocessor().networkInput(
      from: try #require(RGBImage(width: width, height: height, pixels: pixels)))
    let row = 100 * 224 * 3
    #expect(abs(input[row] - (-127.0 / 128.0)) < 1e-4)
    #expect(abs(input[row + 223 * 3] - 1) < 1e-4)
    #expect(abs(input[row + 111 * 3] - (-127.0 / 128.0)) < 0.05)
    #expect(abs(input[row + 112 * 3] - 1) < 0.05)
  }

  @Test func tapsAreNormalised() {
    for (inSize, outSize) in [(224, 224), (5000, 224), (7, 224), (1, 224)] {
      let taps = ResamplingTaps(inputSize: inSize, outputSize: outSize)
      for x in 0..<outSize {
        let sum = (0..<taps.count[x]).reduce(Float(0)) { $0 + taps.weights[x * taps.stride + $1] }
        #expect(abs(sum - 1) < 1e-5, "\(inSize)→\(outSize) at \(x)")
        #expect(taps.start[x] >= 0 && taps.start[x] + taps.count[x] <= inSize)
      }
    }
  }
}
