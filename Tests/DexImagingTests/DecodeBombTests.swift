#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// Small files that claim (or force) enormous work: each is built here, byte by byte, and must
  /// be refused with a typed error before any large allocation. Time and peak RSS for each are
  /// printed by Benchmarks/DexImaging/hostile.sh (no timed assertions here).
  @Suite(.offCooperativePool) struct DecodeBombTests {
    let downscaler = ImageDownscaler()

    func failure(_ data: Data, maximumDimension: Int = 1024) -> ImagingError? {
      do {
        _ = try downscaler.downscale(
          data, options: DownscaleOptions(maximumDimension: maximumDimension))
        return nil
      } catch {
        return error
      }
    }

    @Test func wideOneRowPNGIsRefusedBySide() {
      let png = Self.png(width: 100_000_000, height: 1, bitDepth: 1, colorType: 0)
      #expect(
        failure(Data(png))
          == .dimensionTooLarge(width: 100_000_000, height: 1, maximumDimension: 65_535))
    }

    @Test func tallOneColumnPNGIsRefusedBySide() {
      let png = Self.png(width: 1, height: 100_000_000, bitDepth: 8, colorType: 2)
      let error = failure(Data(png))
      #expect(error == .dimensionTooLarge(width: 1, height: 100_000_000, maximumDimension: 65_535))
      #expect(error?.description.contains("1 x 100000000") == true)
    }

    @Test func sideLimitIsConfigurableAndNeverAbove65535() {
      let png = Data(Self.png(width: 5_000, height: 10, bitDepth: 8, colorType: 2))
      var options = DownscaleOptions(maximumDimension: 64)
      options.decoding.limits.maximumDimension = 4_000
      #expect(
        throws: ImagingError.dimensionTooLarge(width: 5_000, height: 10, maximumDimension: 4_000)
      ) { try downscaler.downscale(png, options: options) }
      options.decoding.limits.maximumDimension = 1 << 40
      #expect(options.decoding.limits.effectiveMaximumDimension == 65_535)
      #expect(DecodingLimits.default.maximumDimension == 65_535)
    }

    @Test func largeInterlacedPNGIsRefusedByTheMemoryLimit() {
      // Adam7 needs the whole image in memory: 10 000 x 10 000 RGBA is 400 MB.
      let png = Self.png(width: 10_000, height: 10_000, bitDepth: 8, colorType: 6, interlaced: true)
      #expect(
        failure(Data(png))
          == .decodingMemoryTooLarge(byteCount: 400_000_000, maximumByteCount: 256 << 20))
    }

    @Test func progressiveCMYK100MegapixelJPEGIsRefusedByTheMemoryLimit() {
      // Within the pixel limit (exactly 100 MP), but its coefficient buffer would be
      // 4 components x 1250 x 1250 blocks x 128 bytes.
      let jpeg = Self.cmykJPEG(width: 10_000, height: 10_000, progressive: true)
      let error = failure(Data(jpeg))
      #expect(error == .decodingMemoryTooLarge(byteCount: 800_000_000, maximumByteCount: 256 << 20))
      #expect(error?.description.contains("800000000-byte") == true)
    }

    @Test func baselineCMYKOver100MegapixelsIsRefusedByThePixelLimit() {
      let jpeg = Self.cmykJPEG(width: 10_240, height: 10_240, progressive: false)
      #expect(
        failure(Data(jpeg))
          == .imageTooLarge(width: 10_240, height: 10_240, maximumPixelCount: 100_000_000))
    }

    @Test(arguments: [150, 3_000])
    func progressiveJPEGWithManyScansIsRefused(_ scans: Int) throws {
      let jpeg = try Self.progressiveJPEG(repeatingLastScanTo: scans)
      guard case .corruptData(.jpeg, let message) = failure(Data(jpeg)) else {
        Issue.record("\(scans) scans were not refused")
        return
      }
      #expect(message.contains("Too many progressive scans (more than 100)"))
    }

    @Test func progressiveJPEGWithFewScansStillDecodes() throws {
      let jpeg = try Self.progressiveJPEG(repeatingLastScanTo: 0)
      let image = try downscaler.downscale(jpeg, options: DownscaleOptions(maximumDimension: 64))
      #expect(image.pixelWidth == 64 && image.pixelHeight == 48)
    }

    /// Reductions beyond the filter's own range (here 300x and 30 000x) go through the box
    /// pre-reduction; a linear gradient must come out as the same gradient.
    @Test(arguments: [(30_000, 2, 100), (2, 30_000, 100), (2_400, 2_400, 8)])
    func extremeReductionsKeepAGradient(_ width: Int, _ height: Int, _ side: Int) throws {
      var pixels = [UInt8](repeating: 0, count: width * height * 3)
      let long = max(width, height)
      for y in 0..<height {
        for x in 0..<width {
          let t = width >= height ? x : y
          let index = (y * width + x) * 3
          pixels[index] = UInt8(t * 255 / (long - 1))
          pixels[index + 1] = 128
          pixels[index + 2] = UInt8(255 - t * 255 / (long - 1))
        }
      }
      let source = try #require(RGBImage(width: width, height: height, pixels: pixels))
      let small = try source.resampled(fitting: side)
      #expect(max(small.width, small.height) == side)
      let count = max(small.width, small.height)
      for i in 2..<(count - 2) {  // away from the borders, where the filter is clipped
        let index = (width >= height ? i : i * small.width) * 3
        let expected = (Double(i) + 0.5) / Double(count) * 255
        #expect(abs(Double(small.pixels[index]) - expected) <= 2.5, "sample \(i)")
        #expect(abs(Int(small.pixels[index + 1]) - 128) <= 1)
        #expect(abs(Double(small.pixels[index + 2]) - (255 - expected)) <= 2.5)
      }
    }

    // MARK: Builders

    /// A PNG whose IHDR claims `width` x `height`, with a tiny valid zlib stream as its data.
    static func png(
      width: UInt32, height: UInt32, bitDepth: UInt8, colorType: UInt8, interlaced: Bool = false
    ) -> [UInt8] {
      let ihdr =
        bigEndian32(width) + bigEndian32(height) + [bitDepth, colorType, 0, 0]
        + [interlaced ? 1 : 0]
      // zlib: one empty stored block (the rows are missing; only the header matters).
      let idat: [UInt8] = [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]
      return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr)
        + pngChunk("IDAT", idat) + pngChunk("IEND", [])
    }

    /// A four-component (Adobe CMYK) JPEG header up to its first scan, then a few bytes of data.
    static func cmykJPEG(width: Int, height: Int, progressive: Bool) -> [UInt8] {
      func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
      var bytes: [UInt8] = [0xFF, 0xD8]
      bytes += [0xFF, 0xEE] + be16(14) + Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 0]
      bytes += [0xFF, 0xDB] + be16(67) + [0] + [UInt8](repeating: 1, count: 64)
      bytes +=
        [0xFF, progressive ? 0xC2 : 0xC0] + be16(8 + 3 * 4) + [8] + be16(height)
        + be16(width) + [4]
      for id in 1...4 { bytes += [UInt8(id), 0x11, 0] }
      // A DC-only Huffman table with one 1-bit code (category 0).
      bytes +=
        [0xFF, 0xC4] + be16(3 + 16 + 1) + [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0]
      bytes += [0xFF, 0xDA] + be16(6 + 2 * 4) + [4]
      for id in 1...4 { bytes += [UInt8(id), 0x00] }
      bytes += [0, progressive ? 0 : 63, 0]
      bytes += [UInt8](repeating: 0, count: 64) + [0xFF, 0xD9]
      return bytes
    }

    /// A real 640 x 480 progressive JPEG (our encoder's progression, ten scans) with its smallest
    /// scan repeated at the end until the file has `scans` scans (0: left as is).
    static func progressiveJPEG(repeatingLastScanTo scans: Int) throws -> Data {
      var pixels = [UInt8](repeating: 0, count: 640 * 480 * 3)
      for index in pixels.indices { pixels[index] = UInt8(truncatingIfNeeded: index / 7) }
      let image = try #require(RGBImage(width: 640, height: 480, pixels: pixels))
      let jpeg = [UInt8](
        try JPEGEncoder.encode(image, quality: 80, subsampling: .yuv420, progressive: true))
      let scanRanges = Self.scanRanges(jpeg)
      guard scans > 0, let last = scanRanges.last,
        let smallest = scanRanges.min(by: { $0.count < $1.count })
      else { return Data(jpeg) }
      var bytes = Array(jpeg[..<last.upperBound])
      for _ in scanRanges.count..<scans { bytes += jpeg[smallest] }
      return Data(bytes + [0xFF, 0xD9])
    }

    /// Each SOS segment with its entropy-coded data.
    static func scanRanges(_ jpeg: [UInt8]) -> [Range<Int>] {
      var ranges: [Range<Int>] = []
      var position = 2
      while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
        let marker = jpeg[position + 1]
        if marker == 0xD9 { break }
        let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
        var end = position + 2 + length
        if marker == 0xDA {
          while end + 1 < jpeg.count {
            let next = jpeg[end + 1]
            if jpeg[end] == 0xFF && next != 0 && !(0xD0...0xD7).contains(next) { break }
            end += 1
          }
          ranges.append(position..<end)
        }
        position = end
      }
      return ranges
    }
  }
#endif
