#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  @Suite(.offCooperativePool) struct ImageDownscalerJPEGTests {
    let downscaler = ImageDownscaler()

    func decode(_ data: Data, _ target: PixelTarget = .original) throws -> RGBImage {
      try downscaler.decodePixels(from: data, target: target)
    }

    @Test func downscaledJPEGMatchesAFullResolutionLanczosReference() throws {
      let output = try downscaler.downscaledJPEG(
        from: resource("photo.jpg"), maximumDimension: 320, quality: 0.9)
      let decoded = try decode(output)
      let reference = try decode(resource("photo-320-reference.png"))
      #expect(decoded.width == 320)
      #expect(decoded.height == 180)
      #expect(psnr(decoded, reference) > 33)
    }

    @Test func decodedPixelsMatchTheReferenceBeforeEncoding() throws {
      let pixels = try decode(resource("photo.jpg"), .fitting(maximumDimension: 320))
      let reference = try decode(resource("photo-320-reference.png"))
      #expect(pixels.width == 320 && pixels.height == 180)
      #expect(psnr(pixels, reference) > 36)
    }

    @Test func richResultReportsSizesAndFormat() throws {
      let result = try downscaler.downscale(
        resource("photo.jpg"), options: DownscaleOptions(maximumDimension: 500))
      #expect(result.pixelWidth == 500)
      #expect(result.pixelHeight == 281)  // 540 * 500 / 960 = 281.25
      #expect(result.sourcePixelWidth == 960)
      #expect(result.sourcePixelHeight == 540)
      #expect(result.sourceFormat == .jpeg)
      #expect(result.appliedOrientation == .up)
      #expect(!result.isPartial)
      let check = try decode(result.jpegData)
      #expect(check.width == 500 && check.height == 281)
    }

    @Test func neverUpscales() throws {
      let result = try downscaler.downscale(
        resource("photo.jpg"), options: DownscaleOptions(maximumDimension: 4000))
      #expect(result.pixelWidth == 960)
      #expect(result.pixelHeight == 540)
    }

    @Test func lowerQualityGivesSmallerFiles() throws {
      let data = try resource("photo.jpg")
      let low = try downscaler.downscaledJPEG(from: data, maximumDimension: 640, quality: 0.3)
      let high = try downscaler.downscaledJPEG(from: data, maximumDimension: 640, quality: 0.95)
      #expect(low.count < high.count)
    }

    @Test(arguments: [ChromaSubsampling.yuv420, .yuv422, .yuv444])
    func chromaSubsamplingIsWrittenToTheFrameHeader(_ subsampling: ChromaSubsampling) throws {
      let options = DownscaleOptions(maximumDimension: 200, chromaSubsampling: subsampling)
      let jpeg = [UInt8](try downscaler.downscale(resource("photo.jpg"), options: options).jpegData)
      let sof = try #require(startOfFrameOffset(jpeg))
      let lumaSampling = jpeg[sof + 11]  // first component's H<<4 | V
      let expected: UInt8 =
        switch subsampling {
        case .yuv420: 0x22
        case .yuv422: 0x21
        case .yuv444: 0x11
        }
      #expect(lumaSampling == expected)
    }

    @Test func progressiveOutputIsProgressive() throws {
      let options = DownscaleOptions(maximumDimension: 200, isProgressive: true)
      let jpeg = [UInt8](try downscaler.downscale(resource("photo.jpg"), options: options).jpegData)
      let sof = try #require(startOfFrameOffset(jpeg))
      #expect(jpeg[sof + 1] == 0xC2)
      #expect(try decode(Data(jpeg)).width == 200)
    }

    @Test(arguments: 1...8)
    func everyEXIFOrientationIsApplied(_ orientation: Int) throws {
      let data = try resource("orientation-\(orientation).jpg")
      let upright = try decode(resource("orientation-upright.png"))
      let decoded = try decode(data)
      #expect(decoded.width == 240)
      #expect(decoded.height == 135)
      #expect(psnr(decoded, upright) > 30)

      let result = try downscaler.downscale(data, options: DownscaleOptions(maximumDimension: 120))
      #expect(result.appliedOrientation.rawValue == UInt8(orientation))
      #expect(result.pixelWidth == 120 && result.pixelHeight == 68)
      let stored = result.appliedOrientation.swapsDimensions ? (135, 240) : (240, 135)
      #expect(result.sourcePixelWidth == stored.0 && result.sourcePixelHeight == stored.1)
      // The output is upright and has no EXIF block left to re-orient it.
      #expect(result.jpegData.range(of: Data("Exif".utf8)) == nil)
      let small = try decode(result.jpegData)
      let smallReference = try decode(
        resource("orientation-upright.png"), .fitting(maximumDimension: 120))
      // Floor set when the assets moved to the "Fallen Leaf" photo (Scripts/imaging-test-assets.py):
      // measured 26.69-27.90 dB over orientations 1-8 (libjpeg-turbo, x86-64). Its leaf litter
      // loses more to a quality-80 JPEG at 120 x 68 than the old photo did: Pillow's own JPEG of
      // the same downscale scores 29.07 dB against 31.94 dB on the old one, hence 25.5, not 28.
      #expect(psnr(small, smallReference) > 25.5)
    }

    @Test func orientationComparisonCanFail() throws {
      // Guard for the test above: a rotated-but-not-corrected image is far from upright.
      let upright = try decode(resource("orientation-upright.png"))
      let mirrored = try decode(resource("orientation-2.jpg"))
      var flipped = mirrored.pixels
      for y in 0..<mirrored.height {
        for x in 0..<(mirrored.width / 2) {
          for c in 0..<3 {
            flipped.swapAt(
              (y * mirrored.width + x) * 3 + c,
              (y * mirrored.width + mirrored.width - 1 - x) * 3 + c)
          }
        }
      }
      let wrong = try #require(
        RGBImage(width: mirrored.width, height: mirrored.height, pixels: flipped))
      #expect(psnr(wrong, upright) < 20)
    }

    @Test(arguments: [
      "small-progressive.jpg", "small-444.jpg", "small-422.jpg", "small-420.jpg",
      "small-cmyk-adobe.jpg", "small-ycck-adobe.jpg",
    ])
    func jpegVariantsDecodeToTheReference(_ name: String) throws {
      let reference = try decode(resource("small-reference.png"))
      let decoded = try decode(resource(name))
      #expect(decoded.width == 480 && decoded.height == 270)
      #expect(psnr(decoded, reference) > 30)
    }

    @Test func grayscaleJPEGMatchesTheReferenceLuma() throws {
      let reference = luma(try decode(resource("small-reference.png")))
      let decoded = try decode(resource("small-gray.jpg"))
      #expect(decoded.width == 480)
      #expect(psnr(decoded, reference) > 30)
      // Every pixel is grey.
      var coloured = 0
      for index in stride(from: 0, to: decoded.pixels.count, by: 3) {
        let pixel = decoded.pixels[index..<index + 3]
        if pixel.min() != pixel.max() { coloured += 1 }
      }
      #expect(coloured == 0)
    }

    @Test func dctScaledDownscaleOfVariantsStaysClose() throws {
      let reference = try decode(resource("small-reference.png"), .fitting(maximumDimension: 100))
      for name in ["small-progressive.jpg", "small-cmyk-adobe.jpg", "small-422.jpg"] {
        let decoded = try decode(resource(name), .fitting(maximumDimension: 100))
        #expect(decoded.width == 100 && decoded.height == 56, "\(name)")
        #expect(psnr(decoded, reference) > 30, "\(name)")
      }
    }

    @Test func minimumShortSideUsesDCTScalingOnly() throws {
      let data = try resource("photo.jpg")  // 960 x 540
      let quarter = try decode(data, .minimumShortSide(100))  // 1/8 gives 68 < 100; 1/4 gives 135
      #expect(quarter.width == 240 && quarter.height == 135)
      let half = try decode(data, .minimumShortSide(256))
      #expect(half.width == 480 && half.height == 270)
      let whole = try decode(data, .minimumShortSide(1000))
      #expect(whole.width == 960 && whole.height == 540)
      // Orientation is applied and the short side is measured upright.
      // Stored 135 x 240; at 1/2 the short side is 68 >= 60.
      let portrait = try decode(resource("orientation-6.jpg"), .minimumShortSide(60))
      #expect(portrait.width == 120 && portrait.height == 68)
    }

    @Test(arguments: ChromaUpsampling.allCases)
    func everyChromaUpsamplingDecodesFullSize(_ upsampling: ChromaUpsampling) throws {
      let options = DecodingOptions(chromaUpsampling: upsampling)
      let image = try downscaler.decodePixels(
        from: resource("small-420.jpg"), target: .original, options: options)
      #expect(psnr(image, try decode(resource("small-reference.png"))) > 30)
    }

    @Test func reducingGapAndFastUpsamplingStillProduceTheTarget() throws {
      let data = try resource("photo.jpg")
      let reference = try decode(resource("photo-320-reference.png"))
      let options = DecodingOptions(reducingGap: 2, chromaUpsampling: .fast)
      let image = try downscaler.decodePixels(
        from: data, target: .fitting(maximumDimension: 320), options: options)
      #expect(image.width == 320 && image.height == 180)
      #expect(psnr(image, reference) > 33)
    }
  }
#endif
