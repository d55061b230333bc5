#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// Images above one megapixel take the threaded decode + resample pipeline.
  @Suite(.offCooperativePool) struct LargeImageTests {
    static let width = 1600
    static let height = 900

    /// A smooth gradient: a Lanczos downscale of it is (away from the borders) the same gradient.
    static func gradient(width: Int, height: Int) -> RGBImage? {
      var pixels = [UInt8](repeating: 0, count: width * height * 3)
      for y in 0..<height {
        for x in 0..<width {
          let index = (y * width + x) * 3
          pixels[index] = UInt8(x * 255 / (width - 1))
          pixels[index + 1] = UInt8(y * 255 / (height - 1))
          pixels[index + 2] = UInt8((x + y) * 255 / (width + height - 2))
        }
      }
      return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// The central region, where the filter window does not touch an edge.
    static func interior(_ image: RGBImage, margin: Int) -> RGBImage? {
      var pixels: [UInt8] = []
      for y in margin..<(image.height - margin) {
        let start = (y * image.width + margin) * 3
        pixels += image.pixels[start..<(start + (image.width - 2 * margin) * 3)]
      }
      return RGBImage(
        width: image.width - 2 * margin, height: image.height - 2 * margin, pixels: pixels)
    }

    /// A 6 MP progressive JPEG's coefficient buffer (about 12 MB for luma) is large enough to be
    /// advised for huge pages; the advice must not change a single pixel.
    @Test func hugePageAdviceLeavesTheDecodeUnchanged() throws {
      let source = try #require(Self.gradient(width: 3000, height: 2000))
      let jpeg = try JPEGEncoder.encode(
        source, quality: 90, subsampling: .yuv420, progressive: true)
      var advised = DecodingOptions()
      advised.advisesHugePages = true
      var plain = DecodingOptions()
      plain.advisesHugePages = false
      let downscaler = ImageDownscaler()
      for target in [PixelTarget.fitting(maximumDimension: 1024), .original] {
        let a = try downscaler.decodePixels(from: jpeg, target: target, options: advised)
        let b = try downscaler.decodePixels(from: jpeg, target: target, options: plain)
        #expect(a.width == b.width && a.height == b.height)
        #expect(a.pixels == b.pixels)
      }
      #expect(DecodingOptions().advisesHugePages)
    }

    @Test func largeJPEGDownscalesThroughTheThreadedPipeline() throws {
      let source = try #require(Self.gradient(width: Self.width, height: Self.height))
      let jpeg = try JPEGEncoder.encode(
        source, quality: 95, subsampling: .yuv444, progressive: false)
      let downscaler = ImageDownscaler()
      var options = DecodingOptions()
      options.reducingGap = 1  // 1/4 scale: 400 x 225 decoded, then resampled to 320 x 180
      for gap in [1.0, 1.5, 4.0] {
        options.reducingGap = gap
        let image = try downscaler.decodePixels(
          from: jpeg, target: .fitting(maximumDimension: 320), options: options)
        #expect(image.width == 320 && image.height == 180)
        let expected = try #require(Self.gradient(width: 320, height: 180))
        let got = try #require(Self.interior(image, margin: 8))
        let want = try #require(Self.interior(expected, margin: 8))
        #expect(psnr(got, want) > 35, "gap \(gap)")
      }
    }

    @Test func largeTruncatedJPEGIsPartialOrRejected() throws {
      let source = try #require(Self.gradient(width: Self.width, height: Self.height))
      let jpeg = try JPEGEncoder.encode(
        source, quality: 90, subsampling: .yuv420, progressive: false)
      let cut = jpeg.prefix(jpeg.count / 2)
      let downscaler = ImageDownscaler()
      #expect(throws: ImagingError.truncatedData(format: .jpeg)) {
        try downscaler.decodePixels(from: cut, target: .fitting(maximumDimension: 400))
      }
      let options = DecodingOptions(allowsPartialImages: true, reducingGap: 4)
      let image = try downscaler.decodePixels(
        from: cut, target: .fitting(maximumDimension: 400), options: options)
      #expect(image.width == 400 && image.height == 225)
      // The top rows survived: the red ramp is still there in the first row.
      #expect(image.pixels[(399 * 3)] > 200)
    }
  }
#endif
