#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  // What the primary image of a HEIF decodes from (a grid's tiles, an alpha image), walked
  // through libheif before anything is decoded: only HEVC and AV1 images (and grids, overlays
  // and identity transforms of them) are decoded, whatever other decoders libheif has, all their
  // pixels count against the caller's limits, and compressed items are refused before libheif
  // reads the file.
  extension HEIFReproducerTests {
    /// A HEIC whose primary image (item 1) is a `columns` x `rows` grid of `output` pixels over
    /// tiles of `tileType` (items 2...), each 96 x 64 and coded as heic-8bit.heic's one tile
    /// (all tiles share its coded data); with `alphaType`, the grid has an alpha image of that
    /// type (the same coded data) tied to it by `auxl`; with `xmp`, an XMP packet tied to the
    /// grid by `cdsc` whose `infe` (of that version: 2 names its type, 0 and 1 have none) says
    /// its data is compressed with `encoding`.
    static func grid(
      columns: Int, rows: Int, output: (width: Int, height: Int), tileType: String = "hvc1",
      alphaType: String? = nil, xmp: (infeVersion: UInt8, encoding: String)? = nil
    ) throws -> [UInt8] {
      let fixture = [UInt8](try resource("heic-8bit.heic", in: "Resources/formats"))
      let hvcC = try HEVCParameterSets.hvcC(of: fixture)
      let mdatBody = try #require(FormatsBadInputTests.boxBody("mdat", in: fixture))
      let coded = Array(fixture[mdatBody...])
      let tiles = Array(2..<(2 + columns * rows))
      let alpha = alphaType.map { _ in 2 + columns * rows }
      let xmpID = 3 + columns * rows
      let infe = { (id: Int, type: String, hidden: Bool) in
        File.fullBox(
          "infe", version: 2, flags: hidden ? 1 : 0,
          File.bigEndian16(id) + File.bigEndian16(0) + Array(type.utf8) + [0])
      }
      var infes = infe(1, "grid", false) + tiles.flatMap { infe($0, tileType, true) }
      if let alpha { infes += infe(alpha, alphaType ?? "", true) }
      if let xmp {
        let name: [UInt8] = xmp.infeVersion >= 2 ? Array("mime".utf8) + [0] : [0]
        infes += File.fullBox(
          "infe", version: xmp.infeVersion,
          File.bigEndian16(xmpID) + File.bigEndian16(0) + name
            + Array("application/rdf+xml".utf8) + [0] + Array(xmp.encoding.utf8) + [0])
      }
      let itemCount = 1 + tiles.count + (alpha == nil ? 0 : 1) + (xmp == nil ? 0 : 1)
      let iinf = File.fullBox("iinf", File.bigEndian16(itemCount) + infes)
      var references = File.box(
        "dimg",
        File.bigEndian16(1) + File.bigEndian16(tiles.count) + tiles.flatMap(File.bigEndian16))
      if let alpha {
        references += File.box(
          "auxl", File.bigEndian16(alpha) + File.bigEndian16(1) + File.bigEndian16(1))
      }
      if xmp != nil {
        references += File.box(
          "cdsc", File.bigEndian16(xmpID) + File.bigEndian16(1) + File.bigEndian16(1))
      }
      let iref = File.fullBox("iref", references)
      // Properties: 1 hvcC, 2 the tiles' ispe, 3 the grid's ispe, 4 the alpha's auxC, 5 an
      // uncompressed image's uncC (version 1, profile rgb3: what libheif's built-in `unci`
      // decoder needs).
      let ipco = File.box(
        "ipco",
        File.box("hvcC", hvcC) + File.fullBox("ispe", bigEndian32(96) + bigEndian32(64))
          + File.fullBox(
            "ispe", bigEndian32(UInt32(output.width)) + bigEndian32(UInt32(output.height)))
          + File.fullBox("auxC", Array("urn:mpeg:hevc:2015:auxid:1".utf8) + [0])
          + File.fullBox("uncC", version: 1, Array("rgb3".utf8)))
      // Each coded item's essential configuration (a JPEG item needs none).
      let configuration = { (type: String) -> [UInt8] in
        switch type {
        case "hvc1": [0x81]
        case "unci": [0x85]
        default: []
        }
      }
      let tileProperties = configuration(tileType) + [0x02]
      let alphaProperties = configuration(alphaType ?? "") + [0x02, 0x84]
      var associations = File.bigEndian16(1) + [1, 0x03]
      for tile in tiles {
        associations += File.bigEndian16(tile) + [UInt8(tileProperties.count)] + tileProperties
      }
      if let alpha {
        associations +=
          File.bigEndian16(alpha) + [UInt8(alphaProperties.count)] + alphaProperties
      }
      if xmp != nil { associations += File.bigEndian16(xmpID) + [0] }
      let ipma = File.fullBox("ipma", bigEndian32(UInt32(itemCount)) + associations)
      let gridData: [UInt8] =
        [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + File.bigEndian16(output.width)
        + File.bigEndian16(output.height)
      var located = [(1, 0, gridData.count)]
      for item in tiles + (alpha.map { [$0] } ?? []) {
        located.append((item, gridData.count, coded.count))
      }
      if xmp != nil { located.append((xmpID, gridData.count, 16)) }
      return heif(
        brand: "heic", iinf: iinf + iref, iprp: File.box("iprp", ipco + ipma),
        iloc: { base in
          File.fullBox(
            "iloc",
            [0x44, 0x00] + File.bigEndian16(located.count)
              + located.flatMap { id, offset, length in
                File.bigEndian16(id) + File.bigEndian16(0) + File.bigEndian16(1)
                  + bigEndian32(UInt32(base + offset)) + bigEndian32(UInt32(length))
              })
        }, mdat: gridData + coded)
    }

    func decodeGraph(_ file: [UInt8], limits: DecodingLimits = .default) throws -> RGBImage {
      try downscaler.decodePixels(
        from: Data(file), target: .original, options: DecodingOptions(limits: limits))
    }

    /// The builder makes files libheif decodes: a grid of one tile is that tile.
    @Test func aGridOfOneHEVCTileDecodes() throws {
      let file = try Self.grid(columns: 1, rows: 1, output: (96, 64))
      guard HEIFCapability.decodes(Data(file)) else { return }
      let image = try decodeGraph(file)
      #expect(image.width == 96 && image.height == 64)
    }

    /// A tile, or the primary's alpha image, coded as anything but HEVC or AV1 is refused by
    /// name before any decoder runs, whether or not libheif has a decoder for it.
    @Test(arguments: [("jpeg", nil), ("unci", nil), ("hvc1", "jpeg"), ("hvc1", "unci")])
    func otherCodingsAreRefusedByName(tile: String, alpha: String?) throws {
      let file = try Self.grid(
        columns: 1, rows: 1, output: (96, 64), tileType: tile, alphaType: alpha)
      guard HEIFCapability.decodes(Data(file)) else { return }
      let named = alpha ?? tile
      #expect {
        try decodeGraph(file)
      } throws: { error in
        guard case ImagingError.unsupportedFormat(let detected) = error else { return false }
        return detected.contains("coded as '\(named)'") && detected.contains("HEVC and AV1")
      }
    }

    /// An item whose data is compressed is refused before libheif reads the file (libheif 1.19
    /// inflates it while parsing, without a bound), whatever the `infe` version; an XMP packet
    /// stored as it is (an empty encoding) is not in the way.
    @Test func aCompressedItemIsRefusedBeforeLibheifReadsIt() throws {
      for (version, encoding) in [(UInt8(2), "deflate"), (2, "br"), (1, "compress_zlib")] {
        let file = try Self.grid(columns: 1, rows: 1, output: (96, 64), xmp: (version, encoding))
        #expect(
          throws: ImagingError.unsupportedFormat(
            detected: "HEIF whose item 4 is compressed (\(encoding)); compressed items are "
              + "refused, since libheif inflates them without a bound while it reads the file")
        ) {
          try decodeGraph(file)
        }
      }
      let plain = try Self.grid(columns: 1, rows: 1, output: (96, 64), xmp: (2, ""))
      guard HEIFCapability.decodes(Data(plain)) else { return }
      #expect(try decodeGraph(plain).width == 96)
    }

    /// The scan reads only what it must and stops at what does not fit: a box past its parent,
    /// a size of 0 (to the end) or 1 (64-bit), and every cut of a file find nothing or the item
    /// and read nothing past the cut.
    @Test func theEncodingScanIsBoundedOnHostileBoxes() {
      let infe = File.fullBox(
        "infe", version: 2,
        File.bigEndian16(7) + File.bigEndian16(0) + Array("mime".utf8) + [0] + Array("x".utf8)
          + [0] + Array("gzip".utf8))  // no NUL after the encoding: up to the box's end
      let meta = File.fullBox("meta", File.fullBox("iinf", File.bigEndian16(1) + infe))
      let found = meta.withUnsafeBytes { HEIFItemEncodings.encodedItem(in: $0) }
      #expect(found?.id == 7 && found?.encoding == "gzip")
      var toTheEnd = meta
      toTheEnd.replaceSubrange(0..<4, with: bigEndian32(0))
      #expect(toTheEnd.withUnsafeBytes { HEIFItemEncodings.encodedItem(in: $0) }?.id == 7)
      let large = bigEndian32(1) + Array("meta".utf8) + [0, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0, 0, 0]
      #expect(large.withUnsafeBytes { HEIFItemEncodings.encodedItem(in: $0) } == nil)
      for end in 0..<meta.count {
        let cut = Array(meta[..<end])
        let result = cut.withUnsafeBytes { HEIFItemEncodings.encodedItem(in: $0) }
        #expect(result == nil || result?.id == 7, "cut at \(end)")
      }
      var pastParent = meta
      pastParent.replaceSubrange(0..<4, with: bigEndian32(UInt32(meta.count + 1)))
      #expect(pastParent.withUnsafeBytes { HEIFItemEncodings.encodedItem(in: $0) } == nil)
    }

    /// Four tiles under a grid the size of one: libheif decodes all four in full. Their pixels
    /// count: at twice the pixel limit the file is refused before any of them is decoded, where
    /// the grid alone (one tile's size) is well within the limit.
    @Test func theTilesPixelsCountAgainstTheLimit() throws {
      let file = try Self.grid(columns: 2, rows: 2, output: (96, 64))
      guard HEIFCapability.decodes(Data(file)) else { return }
      let tight = DecodingLimits(maximumPixelCount: 10_000)  // the tiles: 4 x 6144 > 2 x 10 000
      #expect {
        try decodeGraph(file, limits: tight)
      } throws: { error in
        guard case ImagingError.corruptData(.heif, let message) = error else { return false }
        return message.contains("decodes 24576 pixels from 4 images, more than 20000")
      }
      let image = try decodeGraph(file, limits: DecodingLimits(maximumPixelCount: 12_288))
      #expect(image.width == 96 && image.height == 64)
    }

    /// The tiles' planes count against the memory limit too (as many as libheif decodes at
    /// once): a grid that fits alone does not with its tiles.
    @Test func theTilesPlanesCountAgainstTheMemoryLimit() throws {
      let file = try Self.grid(columns: 2, rows: 2, output: (96, 64))
      guard HEIFCapability.decodes(Data(file)) else { return }
      let canvas = 96 * 64 * 9 / 2
      let tiles = 4 * 96 * 64 * 3 / 2
      #expect(
        throws: ImagingError.decodingMemoryTooLarge(
          byteCount: canvas + tiles, maximumByteCount: canvas + tiles - 1)
      ) {
        try decodeGraph(file, limits: DecodingLimits(maximumMemoryByteCount: canvas + tiles - 1))
      }
    }
  }
#endif
