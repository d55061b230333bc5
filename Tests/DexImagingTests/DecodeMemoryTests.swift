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

    func decode(_ name: String, maxMemory: Int) throws {
      let options = DecodingOptions(limits: DecodingLimits(maxMemoryByteCount: maxMemory))
      _ = try downscaler.decodePixels(
        from: formatResource(name), target: .fitting(maxDimension: 32), options: options)
    }

    @Test(arguments: [
      // 96 x 60 (libheif's size for the primary image), 8-bit 4:2:0: 1.5 bytes a pixel of
      // planes and 3 of RGB.
      ("heic-8bit.heic", 96 * 60 * 9 / 2),
      // A lossless image's whole ARGB picture, and an animation's two RGBA canvases.
      ("webp-lossless-alpha.webp", 96 * 60 * 4), ("webp-animated.webp", 2 * 96 * 60 * 4),
    ])
    func theMemoryLimitHoldsForFormatsWithoutAScaledDecode(_ name: String, _ bytes: Int) throws {
      #expect(
        throws: ImagingError.decodingMemoryTooLarge(byteCount: bytes, maxByteCount: bytes - 1)
      ) {
        try decode(name, maxMemory: bytes - 1)
      }
      try decode(name, maxMemory: bytes)
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

    /// An overlay draws each input decoded in full: 1024 references to one 96 x 64 tile on a
    /// 64 x 64 canvas (12 KB; with a 4096 x 4096 tile such a file takes minutes) count as
    /// 1024 inputs, while two inputs decode.
    @Test func anOverlayCountsEveryInput() throws {
      let canvas = 64 * 64 * 9 / 2
      let inputs = 1024 * 96 * 64 * 3 / 2
      #expect(
        throws: ImagingError.decodingMemoryTooLarge(
          byteCount: canvas + inputs, maxByteCount: 8 << 20)
      ) {
        try decode("heif-overlay-1024-inputs.heic", maxMemory: 8 << 20)
      }
      let two = try downscaler.decodePixels(
        from: formatResource("heif-overlay-2.heic"), target: .original)
      #expect(two.width == 96 && two.height == 64)
    }

    /// An `ispe` over libheif's 32 768-pixel side, refused before libheif reads the file, names
    /// the side (it said "0 x 0 = 0 pixels").
    @Test func aSideOverLibheifsCeilingIsNamed() throws {
      var bytes = [UInt8](try formatResource("heic-8bit.heic"))
      var offset = 0
      while let body = FormatsBadInputTests.boxBody("ispe", in: Array(bytes[offset...])).map({
        $0 + offset
      }) {
        bytes.replaceSubrange(body + 4..<body + 12, with: bigEndian32(40_000) + bigEndian32(1))
        offset = body + 12
      }
      #expect(
        throws: ImagingError.dimensionTooLarge(
          width: 40_000, height: 1, maxDimension: HEIFDecoding.maxSide)
      ) {
        try downscaler.decodePixels(from: Data(bytes), target: .fitting(maxDimension: 64))
      }
    }

    /// An `infe` box too short to hold an item type, as the last bytes of the file: the box walk
    /// reads inside the box only (it read up to 10 bytes past the input), and the file is
    /// refused as corrupt.
    @Test func aShortItemInfoBoxAtTheEndIsCorrupt() {
      func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        bigEndian32(UInt32(8 + body.count)) + Array(type.utf8) + body
      }
      let infe = box("infe", [3, 0, 0, 0])  // version 3, nothing after the flags
      let iinf = box("iinf", [0, 0, 0, 0, 0, 1] + infe)
      let meta = box("meta", [0, 0, 0, 0] + iinf)
      let file = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + meta
      #expect {
        try downscaler.decodePixels(from: Data(file), target: .fitting(maxDimension: 64))
      } throws: { error in
        guard case ImagingError.corruptData(.heif, _) = error else { return false }
        return true
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
      var options = DownscaleOptions(maxDimension: 200)
      #expect(throws: ImagingError.truncatedData(format: .jpeg)) {
        try downscaler.downscale(cut, options: options)
      }
      options.decoding.allowsPartialImages = true
      let result = try downscaler.downscale(cut, options: options)
      #expect(result.isPartial)
    }
  }
#endif
