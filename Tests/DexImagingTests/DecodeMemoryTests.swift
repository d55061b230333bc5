#if os(Linux) && SystemImageCodecs
  import CDexImageShim
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// Files whose decode would need far more memory or work than their size suggests, in the
  /// formats with no scaled decode (HEIF, AVIF, lossless and animated WebP), and files whose data
  /// ends early but says otherwise: each is refused, or marked partial, before the work is done.
  @Suite(.offCooperativePool) struct DecodeMemoryTests {
    let downscaler = ImageDownscaler()

    func formatResource(_ name: String) throws -> Data {
      try resource(name, in: "Resources/formats")
    }

    func decode(_ name: String, maximumMemory: Int) throws {
      let options = DecodingOptions(limits: DecodingLimits(maximumMemoryByteCount: maximumMemory))
      _ = try downscaler.decodePixels(
        from: formatResource(name), target: .fitting(maximumDimension: 32), options: options)
    }

    @Test(arguments: [
      // 96 x 60 (libheif's size for the primary image, a grid), 8-bit 4:2:0: 1.5 bytes a pixel
      // of planes and 3 of RGB; and the planes of its one 96 x 64 tile, decoded before it is
      // copied into the grid.
      ("heic-8bit.heic", 96 * 60 * 9 / 2 + 96 * 64 * 3 / 2),
      // A lossless image's whole ARGB picture, and an animation's two RGBA canvases.
      ("webp-lossless-alpha.webp", 96 * 60 * 4), ("webp-animated.webp", 2 * 96 * 60 * 4),
    ])
    func theMemoryLimitHoldsForFormatsWithoutAScaledDecode(_ name: String, _ bytes: Int) throws {
      guard HEIFCapability.decodes(try formatResource(name)) else { return }
      #expect(
        throws: ImagingError.decodingMemoryTooLarge(byteCount: bytes, maximumByteCount: bytes - 1)
      ) {
        try decode(name, maximumMemory: bytes - 1)
      }
      try decode(name, maximumMemory: bytes)
    }

    /// A lossy WebP with alpha holds its alpha plane (and, compressed losslessly, that plane's
    /// ARGB picture) at the stored size, whatever the output size.
    @Test func aLossyWebPWithAlphaCountsItsFullSizeAlpha() {
      var header = dex_webp_header()
      header.width = 10_000
      header.height = 10_000
      header.format = 1
      let scaled = DownscaleGeometry.Size(width: 100, height: 100)
      #expect(WebPDecoding.decodeByteCount(header, scaled: scaled) == 4 * 100 * 100)
      header.has_alpha = 1
      #expect(
        WebPDecoding.decodeByteCount(header, scaled: scaled)
          == 4 * 100 * 100 + 5 * 10_000 * 10_000)
    }

    /// The overlay fixtures refer to one tile again and again (1024 times, or twice): libheif
    /// 1.19 refuses an `iref` with double references, so neither reaches a decoder; libheif 1.23
    /// reads them and refuses the 1024 inputs by its own security limit on an overlay's inputs
    /// (with 1.15 the 1024 inputs were counted against the memory limit; with a 4096 x 4096 tile
    /// such a file took minutes).
    @Test func anOverlayOfOneTile1024TimesIsRefused() throws {
      guard HEIFCapability.decodes(try formatResource("heif-overlay-1024-inputs.heic")) else {
        return
      }
      #expect {
        try decode("heif-overlay-1024-inputs.heic", maximumMemory: 8 << 20)
      } throws: { error in
        guard case ImagingError.corruptData(.heif, let message) = error else { return false }
        return message.contains("double references")
          || message.contains("Security limit exceeded")
      }
    }

    /// The overlay drawing its tile twice at the canvas's corner: refused by libheif 1.19 (double
    /// references), drawn by libheif 1.23, where the canvas (the tile's coded 96 x 64) then holds
    /// the tile's pixels: heic-8bit.heic's 96 x 60 image and 4 more rows, each value within 1 of
    /// it (1.23 composites the overlay in RGB; 1 at most was measured on Debian 13).
    @Test func anOverlayOfOneTileTwiceIsRefusedOrDrawsTheTile() throws {
      guard HEIFCapability.decodes(try formatResource("heif-overlay-2.heic")) else { return }
      let overlay: RGBImage
      do {
        overlay = try downscaler.decodePixels(
          from: formatResource("heif-overlay-2.heic"), target: .original)
      } catch ImagingError.corruptData(.heif, let message) {
        #expect(message.contains("double references"), "\(message)")
        return
      }
      let tile = try downscaler.decodePixels(
        from: formatResource("heic-8bit.heic"), target: .original)
      #expect(overlay.width == 96 && overlay.height == 64)
      #expect(tile.width == 96 && tile.height == 60)
      let difference = zip(overlay.pixels.prefix(tile.pixels.count), tile.pixels).reduce(0) {
        max($0, abs(Int($1.0) - Int($1.1)))
      }
      #expect(difference <= 1)
    }

    /// A side over DecodingLimits.maximumDimension, in the `ispe` the shim reads through libheif,
    /// names the side.
    @Test func aSideOverTheLimitIsNamed() throws {
      var bytes = [UInt8](try formatResource("heic-8bit.heic"))
      var offset = 0
      while let body = FormatsBadInputTests.boxBody("ispe", in: Array(bytes[offset...])).map({
        $0 + offset
      }) {
        bytes.replaceSubrange(body + 4..<body + 12, with: bigEndian32(40_000) + bigEndian32(1))
        offset = body + 12
      }
      guard HEIFCapability.decodes(Data(bytes)) else { return }
      let limits = DecodingLimits(maximumDimension: 32_768)
      #expect(
        throws: ImagingError.dimensionTooLarge(width: 40_000, height: 1, maximumDimension: 32_768)
      ) {
        try downscaler.decodePixels(
          from: Data(bytes), target: .fitting(maximumDimension: 64),
          options: DecodingOptions(limits: limits))
      }
    }

    /// An `infe` box too short to hold an item type, as the last bytes of the file (the box walk
    /// read up to 10 bytes past the input): libheif 1.19 finds the data ending and the file is
    /// refused as truncated.
    @Test func aShortItemInfoBoxAtTheEndIsCorrupt() {
      func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        bigEndian32(UInt32(8 + body.count)) + Array(type.utf8) + body
      }
      let infe = box("infe", [3, 0, 0, 0])  // version 3, nothing after the flags
      let iinf = box("iinf", [0, 0, 0, 0, 0, 1] + infe)
      let meta = box("meta", [0, 0, 0, 0] + iinf)
      let file = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + meta
      guard HEIFCapability.decodes(Data(file)) else { return }
      #expect {
        try downscaler.decodePixels(from: Data(file), target: .fitting(maximumDimension: 64))
      } throws: { error in
        switch error {
        case ImagingError.corruptData(.heif, _), ImagingError.truncatedData(.heif): return true
        default: return false
        }
      }
    }

    /// A JPEG cut short with an end-of-image marker appended: libjpeg meets the marker where the
    /// scan's data should go on and fills the rest with grey. That is a truncated file, refused,
    /// or partial when partial images are allowed (it was a whole image, 70 % grey).
    /// The same with a comment marker where the data stops (a 201-byte file claiming 100 MP was
    /// taken as a whole grey image).
    @Test(
      arguments: [[0xFF, 0xD9], [0xFF, 0xFE, 0x00, 0x04, 0x41, 0x42, 0xFF, 0xD9]] as [[UInt8]])
    func aCutJPEGEndingInAMarkerIsTruncated(_ trailer: [UInt8]) throws {
      let data = try resource("photo.jpg")
      let cut = data.prefix(data.count * 3 / 10) + Data(trailer)
      var options = DownscaleOptions(maximumDimension: 200)
      #expect(throws: ImagingError.truncatedData(format: .jpeg)) {
        try downscaler.downscale(cut, options: options)
      }
      options.decoding.allowsPartialImages = true
      let result = try downscaler.downscale(cut, options: options)
      #expect(result.isPartial)
    }
  }
#endif
