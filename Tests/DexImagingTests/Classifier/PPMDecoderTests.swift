import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

@Suite(.offCooperativePool) struct PPMDecoderTests {
  @Test func decodesColourAndGrey() throws {
    let colour = try PPMDecoder().decodePixels(
      from: Data("P6\n# a comment\n2 1\n255\n".utf8) + Data([1, 2, 3, 4, 5, 6]))
    #expect(colour == RGBImage(width: 2, height: 1, pixels: [1, 2, 3, 4, 5, 6]))
    let grey = try PPMDecoder().decodePixels(from: Data("P5 2 1 255 ".utf8) + Data([9, 200]))
    #expect(grey == RGBImage(width: 2, height: 1, pixels: [9, 9, 9, 200, 200, 200]))
  }

  @Test func decodesFixture() throws {
    let image = try ClassifierFixtures.image("cat")
    #expect((image.width, image.height, image.pixels.count) == (256, 256, 256 * 256 * 3))
  }

  @Test(arguments: [
    (Data(), PPMDecoder.DecodingError.notNetpbm),
    (Data("P3\n1 1\n255\n0 0 0".utf8), .notNetpbm),
    (Data("P6\n1\n".utf8), .malformedHeader),
    (Data("P6\n1 1 255".utf8), .malformedHeader),
    (Data("P6\n1 1\n65535\n".utf8), .unsupportedDepth(65535)),
    (Data("P6\n0 5\n255\n".utf8), .unsupportedSize(width: 0, height: 5)),
    (Data("P6\n100000 100000\n255\n".utf8), .unsupportedSize(width: 100_000, height: 100_000)),
    (Data("P6\n9999999999 1\n255\n".utf8), .malformedHeader),
    (Data("P6\n2 2\n255\n".utf8) + Data([1, 2, 3]), .truncated(expected: 12, actual: 3)),
  ])
  func rejectsBadInput(data: Data, error: PPMDecoder.DecodingError) {
    #expect(throws: error) { try PPMDecoder().decodePixels(from: data) }
  }

  @Test func honoursPixelLimit() {
    #expect(throws: PPMDecoder.DecodingError.unsupportedSize(width: 20, height: 20)) {
      try PPMDecoder(maximumPixelCount: 100).decodePixels(from: Data("P6 20 20 255 ".utf8))
    }
  }
}
