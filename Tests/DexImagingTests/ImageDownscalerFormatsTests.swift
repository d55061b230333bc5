import DexModel

#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// Loads a file from Resources/formats (the HEIF / AVIF / WebP fixtures; see NOTICE.md there).
  func formatResource(_ name: String) throws -> Data {
    try resource(name, in: "Resources/formats")
  }

  /// The 96 x 60 source photo the fixtures were encoded from, decoded by the PNG path, optionally
  /// oriented by an eXIf chunk (so that it goes through the JPEG/PNG orientation code).
  func formatSource(
    alpha: Bool = false, orientation: UInt16 = 1, options: DecodingOptions = .init()
  )
    throws -> RGBImage
  {
    var bytes = [UInt8](try formatResource(alpha ? "source-alpha.png" : "source.png"))
    if orientation != 1 {
      let tiff = EXIFReaderTests.tiff(bigEndian: true, value: orientation)
      bytes.insert(contentsOf: pngChunk("eXIf", tiff), at: 8 + 25)
    }
    return try ImageDownscaler().decodePixels(
      from: Data(bytes), target: .original, options: options)
  }

  @Suite(.offCooperativePool) struct ImageDownscalerFormatsTests {
    let downscaler = ImageDownscaler()

    /// (fixture, format, compared with the alpha source?, PSNR floor in dB). Floors sit about
    /// 3 dB under what the fixtures measured (HEIC q90 32.8, AVIF 43.8 / 47.4 / 48.3 / 46.1,
    /// WebP q90 32.2 / 34.1, lossless 53.3 and exact), so an encoder update does not trip them
    /// but a wrong channel order, bit depth, transform or compositing does (under 20 dB).
    static let fixtures: [(String, ImageFormat, Bool, Double)] = [
      ("heic-8bit.heic", .heif, false, 30),
      ("heic-10bit.heic", .heif, false, 30),
      ("heic-alpha.heic", .heif, true, 31),
      ("heic-collection.heic", .heif, false, 30),
      ("avif-8bit.avif", .avif, false, 40),
      ("avif-10bit.avif", .avif, false, 44),
      ("avif-12bit.avif", .avif, false, 45),
      ("avif-alpha.avif", .avif, true, 43),
      ("webp-lossy.webp", .webp, false, 29),
      ("webp-lossy-alpha.webp", .webp, true, 31),
      ("webp-lossless-alpha.webp", .webp, true, 50),
      ("webp-animated.webp", .webp, false, 50),
    ]

    @Test(arguments: fixtures)
    func decodedImageMatchesTheSource(
      _ fixture: (name: String, format: ImageFormat, alpha: Bool, floor: Double)
    ) throws {
      let data = try formatResource(fixture.name)
      #expect(try ImageFormat.sniff(data) == fixture.format)
      guard HEIFCapability.decodes(data) else { return }
      let decoded = try downscaler.decodePixels(from: data, target: .original)
      let source = try formatSource(alpha: fixture.alpha)
      #expect(decoded.width == 96 && decoded.height == 60)
      let score = psnr(decoded, source)
      print("PSNR \(fixture.name) vs source: \(String(format: "%.2f", score)) dB")
      #expect(score >= fixture.floor, "\(fixture.name): \(score) dB")
    }

    @Test func collectionDecodesItsPrimaryImage() throws {
      // heic-collection.heic holds the source (primary) and a different photo.
      let collection = try formatResource("heic-collection.heic")
      guard HEIFCapability.decodes(collection) else { return }
      let decoded = try downscaler.decodePixels(from: collection, target: .original)
      let primary = try downscaler.decodePixels(
        from: formatResource("heic-8bit.heic"), target: .original)
      #expect(maxDifference(decoded, primary) == 0)
    }

    @Test(arguments: 1...8)
    func heicTransformsAreApplied(_ orientation: Int) throws {
      let data = try formatResource("heic-orientation-\(orientation).heic")
      guard HEIFCapability.decodes(data) else { return }
      let result = try downscaler.downscale(data, options: DownscaleOptions(maximumDimension: 200))
      let expected = try formatSource(orientation: UInt16(orientation))
      let decoded = try downscaler.decodePixels(from: data, target: .original)
      #expect(decoded.width == expected.width && decoded.height == expected.height)
      #expect(result.pixelWidth == expected.width && result.pixelHeight == expected.height)
      #expect(result.sourceFormat == .heif && result.appliedOrientation == .up)
      let score = psnr(decoded, expected)
      print(
        "PSNR heic-orientation-\(orientation) vs oriented source: \(String(format: "%.2f", score)) dB"
      )
      #expect(score >= 30, "orientation \(orientation): \(score) dB")
    }

    @Test func avifRotationIsApplied() throws {
      // avifenc --irot 1: 90 degrees anti-clockwise, which is EXIF orientation 8.
      let data = try formatResource("avif-irot-1.avif")
      guard HEIFCapability.decodes(data) else { return }
      let decoded = try downscaler.decodePixels(from: data, target: .original)
      let expected = try formatSource(orientation: 8)
      #expect(decoded.width == 60 && decoded.height == 96)
      #expect(psnr(decoded, expected) >= 35)
    }

    @Test func webpEXIFOrientationIsApplied() throws {
      let data = try formatResource("webp-exif-6.webp")
      let result = try downscaler.downscale(data, options: DownscaleOptions(maximumDimension: 200))
      #expect(result.appliedOrientation == .right)
      #expect(result.pixelWidth == 60 && result.pixelHeight == 96)
      let decoded = try downscaler.decodePixels(from: data, target: .original)
      let score = psnr(decoded, try formatSource(orientation: 6))
      print("PSNR webp-exif-6 vs oriented source: \(String(format: "%.2f", score)) dB")
      #expect(score >= 29)
    }

    @Test(arguments: ["heic-alpha.heic", "avif-alpha.avif", "webp-lossless-alpha.webp"])
    func alphaIsCompositedOnTheConfiguredBackground(_ name: String) throws {
      let options = DecodingOptions(background: DexColor(red: 10, green: 200, blue: 30))
      let data = try formatResource(name)
      guard HEIFCapability.decodes(data) else { return }
      let decoded = try downscaler.decodePixels(from: data, target: .original, options: options)
      // Pixel (90, 5) is fully transparent in the source; (5, 5) is opaque.
      let transparent = (5 * 96 + 90) * 3
      let pixel = decoded.pixels[transparent..<transparent + 3].map(Int.init)
      #expect(abs(pixel[0] - 10) <= 4 && abs(pixel[1] - 200) <= 4 && abs(pixel[2] - 30) <= 4)
      let expected = try formatSource(alpha: true, options: options)
      #expect(psnr(decoded, expected) >= 30)
      let opaque = (5 * 96 + 5) * 3
      let onWhite = try downscaler.decodePixels(from: data, target: .original)
      #expect(decoded.pixels[opaque..<opaque + 3] == onWhite.pixels[opaque..<opaque + 3])
    }

    @Test func animatedWebPDecodesItsFirstFrame() throws {
      // Frame 1 is the source, frame 2 another photo; both lossless.
      let decoded = try downscaler.decodePixels(
        from: formatResource("webp-animated.webp"), target: .original)
      #expect(maxDifference(decoded, try formatSource()) <= 1)
    }

    @Test(arguments: ["heic-8bit.heic", "avif-10bit.avif", "webp-lossy.webp", "webp-animated.webp"])
    func downscaleMatchesTheResampledSource(_ name: String) throws {
      // 48 x 30: WebP stills use libwebp's scaled decode (to 72 x 45 with the default gap) and
      // then Lanczos; the others decode full size and resample.
      let data = try formatResource(name)
      guard HEIFCapability.decodes(data) else { return }
      let decoded = try downscaler.decodePixels(from: data, target: .fitting(maximumDimension: 48))
      let reference = try formatSource().resampled(fitting: 48)
      #expect(decoded.width == 48 && decoded.height == 30)
      let score = psnr(decoded, reference)
      print("PSNR \(name) at 48 px vs resampled source: \(String(format: "%.2f", score)) dB")
      #expect(score >= 30)
      let short = try downscaler.decodePixels(from: data, target: .minimumShortSide(20))
      #expect(short.width == 32 && short.height == 20)
    }

    @Test func webpScaledDecodeWithoutGapGoesStraightToTheTarget() throws {
      var options = DecodingOptions()
      options.reducingGap = 1
      let decoded = try downscaler.decodePixels(
        from: formatResource("webp-lossy-alpha.webp"), target: .fitting(maximumDimension: 48),
        options: options)
      let reference = try formatSource(alpha: true).resampled(fitting: 48)
      #expect(decoded.width == 48 && decoded.height == 30)
      #expect(psnr(decoded, reference) >= 28)
    }

    @Test(arguments: ["heic-10bit.heic", "avif-alpha.avif", "webp-lossy-alpha.webp"])
    func downscaleReencodesAsJPEG(_ name: String) throws {
      let data = try formatResource(name)
      guard HEIFCapability.decodes(data) else { return }
      let result = try downscaler.downscale(data, options: DownscaleOptions(maximumDimension: 64))
      #expect(try ImageFormat.sniff(result.jpegData) == .jpeg)
      #expect(result.pixelWidth == 64 && result.pixelHeight == 40)
      #expect(result.sourcePixelWidth == 96 && result.sourcePixelHeight == 60)
    }

    @Test func gridImageIsAssembledFromItsTiles() throws {
      // heif-grid-2x2.heic: a 2 x 2 grid whose four tiles are heic-8bit.heic's coded image
      // (96 x 64 coded; heic-8bit.heic itself shows its top 96 x 60).
      let grid = try formatResource("heif-grid-2x2.heic")
      guard HEIFCapability.decodes(grid) else { return }
      let decoded = try downscaler.decodePixels(from: grid, target: .original)
      #expect(decoded.width == 192 && decoded.height == 128)
      let tile = try downscaler.decodePixels(
        from: formatResource("heic-8bit.heic"), target: .original)
      for (ox, oy) in [(0, 0), (96, 0), (0, 64), (96, 64)] {
        var pixels: [UInt8] = []
        for y in 0..<60 {
          let start = ((oy + y) * 192 + ox) * 3
          pixels += decoded.pixels[start..<start + 96 * 3]
        }
        let quadrant = try #require(RGBImage(width: 96, height: 60, pixels: pixels))
        #expect(maxDifference(quadrant, tile) <= 2, "tile at \(ox),\(oy)")
      }
    }

    @Test func sniffingReadsCompatibleBrands() throws {
      func ftyp(_ major: String, _ compatible: [String]) -> Data {
        let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        return Data(bigEndian32(UInt32(8 + body.count)) + Array("ftyp".utf8) + body)
      }
      #expect(try ImageFormat.sniff(ftyp("mif1", ["mif1", "avif"])) == .avif)
      #expect(try ImageFormat.sniff(ftyp("avif", [])) == .avif)
      #expect(try ImageFormat.sniff(ftyp("heic", ["mif1", "heic"])) == .heif)
      #expect(try ImageFormat.sniff(ftyp("mif1", ["heic"])) == .heif)
      #expect(throws: ImagingError.unsupportedFormat(detected: "ISO media (brand \"isom\")")) {
        try ImageFormat.sniff(ftyp("isom", ["isom", "avc1"]))
      }
    }
  }
#endif
