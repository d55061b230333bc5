#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// Hostile HEIF / AVIF / WebP input: every case is a typed ImagingError, never a crash, a hang
  /// or an allocation sized by the attacker.
  @Suite(.offCooperativePool) struct FormatsBadInputTests {
    let downscaler = ImageDownscaler()

    static let stills = [
      "heic-8bit.heic", "heic-10bit.heic", "heic-alpha.heic", "heic-orientation-6.heic",
      "heic-collection.heic", "avif-8bit.avif", "avif-12bit.avif", "avif-alpha.avif",
      "webp-lossy.webp", "webp-lossy-alpha.webp", "webp-lossless-alpha.webp",
      "webp-animated.webp", "webp-exif-6.webp", "heif-grid-2x2.heic",
    ]

    /// Offset of the body of the first `type` box (after its 8-byte header) in `bytes`.
    static func boxBody(_ type: String, in bytes: [UInt8]) -> Int? {
      let needle = Array(type.utf8)
      guard bytes.count >= 8 else { return nil }
      for index in 4..<(bytes.count - 4) where Array(bytes[index..<index + 4]) == needle {
        return index + 4
      }
      return nil
    }

    @Test(arguments: stills)
    func truncatedFilesFailWithATypedError(_ name: String) throws {
      let bytes = [UInt8](try formatResource(name))
      let format = try ImageFormat.sniff(Data(bytes))
      guard HEIFCapability.decodes(Data(bytes)) else { return }
      for fraction in [0.05, 0.3, 0.6, 0.9, 0.99] {
        let cut = Data(bytes.prefix(Swift.max(16, Int(Double(bytes.count) * fraction))))
        do {
          _ = try downscaler.decodePixels(from: cut, target: .fitting(maximumDimension: 32))
          Issue.record("\(name) cut to \(cut.count) bytes decoded")
        } catch {
          switch error {
          case .truncatedData(let seen), .corruptData(let seen, _):
            #expect(seen == format, "\(name): \(error)")
          default: Issue.record("\(name) cut to \(cut.count) bytes: unexpected \(error)")
          }
        }
      }
    }

    @Test func absurdHEIFDimensionsAreRefusedBeforeDecoding() throws {
      var bytes = [UInt8](try formatResource("heic-8bit.heic"))
      // Every ispe box (grid and tile) claims 100000 x 100000.
      var offset = 0
      while let body = Self.boxBody("ispe", in: Array(bytes[offset...])).map({ $0 + offset }) {
        bytes.replaceSubrange(
          body + 4..<body + 12, with: bigEndian32(100_000) + bigEndian32(100_000))
        offset = body + 12
      }
      guard HEIFCapability.decodes(Data(bytes)) else { return }
      #expect(
        throws: ImagingError.imageTooLarge(
          width: 100_000, height: 100_000, maximumPixelCount: 100_000_000)
      ) {
        try downscaler.decodePixels(from: Data(bytes), target: .fitting(maximumDimension: 64))
      }
    }

    @Test(arguments: [
      // heic-8bit.heic is a 96 x 60 grid of one tile coded 96 x 64: the grid's size is named.
      ("heic-8bit.heic", 96, 60), ("avif-8bit.avif", 96, 60), ("webp-lossy.webp", 96, 60),
      ("webp-animated.webp", 96, 60), ("heif-grid-2x2.heic", 192, 128),
    ])
    func pixelLimitIsCheckedAgainstTheHeader(_ name: String, _ width: Int, _ height: Int) throws {
      guard HEIFCapability.decodes(try formatResource(name)) else { return }
      let options = DecodingOptions(limits: DecodingLimits(maximumPixelCount: 5000))
      #expect(
        throws: ImagingError.imageTooLarge(width: width, height: height, maximumPixelCount: 5000)
      ) {
        try downscaler.decodePixels(
          from: formatResource(name), target: .fitting(maximumDimension: 64), options: options)
      }
    }

    @Test(arguments: [
      ("heic-8bit.heic", 96, 60), ("avif-8bit.avif", 96, 60), ("webp-lossy.webp", 96, 60),
      ("webp-animated.webp", 96, 60), ("heif-grid-2x2.heic", 192, 128),
    ])
    func sideLimitIsCheckedAgainstTheHeader(_ name: String, _ width: Int, _ height: Int) throws {
      guard HEIFCapability.decodes(try formatResource(name)) else { return }
      let options = DecodingOptions(limits: DecodingLimits(maximumDimension: 50))
      #expect(
        throws: ImagingError.dimensionTooLarge(width: width, height: height, maximumDimension: 50)
      ) {
        try downscaler.decodePixels(
          from: formatResource(name), target: .fitting(maximumDimension: 64), options: options)
      }
    }

    @Test(arguments: ["heif-grid-2048-tiles.heic", "heif-grid-repeated-tile.heic"])
    func gridsWithThousandsOfTilesAreRefusedBeforeDecoding(_ name: String) throws {
      // Both are valid files libheif decodes (in seconds: 2048 tiles, or 10000 references to
      // one tile); libheif's item / reference limits (DecodingLimits.maximumItemCount) refuse them
      // before a tile is decoded.
      let data = try formatResource(name)
      guard HEIFCapability.decodes(data) else { return }
      do {
        _ = try downscaler.decodePixels(from: data, target: .fitting(maximumDimension: 64))
        Issue.record("\(name) decoded")
      } catch {
        guard case .corruptData(.heif, let message) = error else {
          Issue.record("\(name): unexpected \(error)")
          return
        }
        #expect(
          message.contains("Security limit exceeded")
            && message.contains("\(DecodingLimits.default.maximumItemCount)"), "\(message)")
      }
    }

    @Test func gridWhoseTilesHoldNoDataIsCorrupt() throws {
      let data = try formatResource("heif-grid-empty-tiles.heic")
      guard HEIFCapability.decodes(data) else { return }
      #expect {
        try downscaler.decodePixels(from: data, target: .original)
      } throws: { error in
        guard case ImagingError.corruptData(.heif, _) = error else { return false }
        return true
      }
    }

    @Test func webpHeaderClaimingAHugeImageIsRefused() throws {
      // A VP8L (lossless) header claiming 16384 x 16384: the 14-bit width-1 / height-1 fields
      // after the 0x2F signature byte at offset 20.
      var bytes = [UInt8](try formatResource("webp-lossless-alpha.webp"))
      let vp8l = try #require(Self.boxBody("VP8L", in: bytes))
      #expect(bytes[vp8l + 4] == 0x2F)
      let bits: UInt32 = (16383) | (16383 << 14) | (UInt32(bytes[vp8l + 8]) >> 4 & 0xF) << 28
      bytes.replaceSubrange(
        vp8l + 5..<vp8l + 9,
        with: [
          UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24),
        ])
      #expect(
        throws: ImagingError.imageTooLarge(
          width: 16384, height: 16384, maximumPixelCount: 100_000_000)
      ) {
        try downscaler.decodePixels(from: Data(bytes), target: .fitting(maximumDimension: 64))
      }
    }

    @Test func webpLyingAboutItsSizeIsCorrupt() throws {
      // cwebp writes VP8X (canvas size) + ALPH + VP8 for a lossy image with alpha: make the
      // canvas claim 4000 x 3000 while the frame is 96 x 60 ...
      var bytes = [UInt8](try formatResource("webp-lossy-alpha.webp"))
      let vp8x = try #require(Self.boxBody("VP8X", in: bytes))
      bytes.replaceSubrange(vp8x + 8..<vp8x + 14, with: [0x9F, 0x0F, 0x00, 0xB7, 0x0B, 0x00])
      #expect {
        try downscaler.decodePixels(from: Data(bytes), target: .fitting(maximumDimension: 64))
      } throws: { error in
        guard case ImagingError.corruptData(.webp, _) = error else { return false }
        return true
      }
      // ... and a plain VP8 frame header claim 4000 x 3000 with 96 x 60 worth of data.
      var lossy = [UInt8](try formatResource("webp-lossy.webp"))
      let vp8 = try #require(Self.boxBody("VP8 ", in: lossy))
      #expect(Array(lossy[vp8 + 7..<vp8 + 10]) == [0x9D, 0x01, 0x2A])
      lossy.replaceSubrange(vp8 + 10..<vp8 + 14, with: [0xA0, 0x0F, 0xB8, 0x0B])
      #expect {
        try downscaler.decodePixels(from: Data(lossy), target: .fitting(maximumDimension: 64))
      } throws: { error in
        switch error as? ImagingError {
        case .corruptData(.webp, _), .truncatedData(.webp): return true
        default: return false
        }
      }
    }

    @Test func garbageAfterAValidSignatureIsCorrupt() throws {
      var generator = SystemRandomNumberGenerator()
      for head in [
        Array("RIFF".utf8) + [0, 1, 0, 0] + Array("WEBPVP8 ".utf8),
        [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8),
        [0, 0, 0, 20] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1".utf8),
      ] {
        let bytes = head + (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let format = try ImageFormat.sniff(Data(bytes))
        guard HEIFCapability.decodes(Data(bytes)) else { continue }
        #expect {
          try downscaler.decodePixels(from: Data(bytes), target: .fitting(maximumDimension: 64))
        } throws: { error in
          switch error as? ImagingError {
          case .corruptData(let seen, _), .truncatedData(let seen): return seen == format
          default: return false
          }
        }
      }
    }
  }
#endif
