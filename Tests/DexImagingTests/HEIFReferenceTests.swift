#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// HEIF/AVIF files whose item references libheif 1.15 followed without end or counted wrongly:
  /// derived images that refer to themselves or to each other (it recursed until its stack
  /// overflowed and the process died, from a 250-byte file), and a second reference box that hid
  /// the first's count of tiles. libheif 1.19's reference-cycle detection and security limits
  /// refuse each with a typed error (the hand-written box walk that did it before is gone).
  @Suite(.offCooperativePool) struct HEIFReferenceTests {
    let downscaler = ImageDownscaler()

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
      bigEndian32(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    static func fullBox(
      _ type: String, version: UInt8 = 0, flags: UInt8 = 0, _ body: [UInt8]
    )
      -> [UInt8]
    {
      box(type, [version, 0, 0, flags] + body)
    }

    static func bigEndian16(_ value: Int) -> [UInt8] {
      [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A minimal AVIF whose items `ids` (item 1 primary) are all derived images of `kind`
    /// (`grid` or `iden`), with `dimg` references `references` (from, to) in one `iref` box per
    /// entry of `irefs`, and one 64×64 grid description as every item's data.
    static func derivedImages(
      kind: String, ids: [Int], irefs: [[(from: Int, to: [Int])]], extents: Int = 1,
      padding: Int = 0
    ) -> [UInt8] {
      let ftyp = box("ftyp", Array("avif".utf8) + bigEndian32(0) + Array("avifmif1miaf".utf8))
      let hdlr = fullBox(
        "hdlr", bigEndian32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
      let pitm = fullBox("pitm", bigEndian16(1))
      let infes = ids.flatMap {
        fullBox(
          "infe", version: 2, flags: $0 == 1 ? 0 : 1,
          bigEndian16($0) + bigEndian16(0) + Array(kind.utf8) + [0])
      }
      let iinf = fullBox("iinf", bigEndian16(ids.count) + infes)
      let iref = irefs.flatMap { references in
        fullBox(
          "iref",
          references.flatMap {
            box(
              "dimg", bigEndian16($0.from) + bigEndian16($0.to.count) + $0.to.flatMap(bigEndian16))
          })
      }
      let ispe = fullBox("ispe", bigEndian32(64) + bigEndian32(64))
      let ipma = fullBox(
        "ipma", bigEndian32(UInt32(ids.count)) + ids.flatMap { bigEndian16($0) + [1, 1] })
      let iprp = box("iprp", box("ipco", ispe) + ipma)
      let grid: [UInt8] =
        [0, 0, 0, 0] + bigEndian16(64) + bigEndian16(64) + [UInt8](repeating: 0, count: padding)
      func meta(dataAt base: Int) -> [UInt8] {
        let iloc = fullBox(
          "iloc",
          [0x44, 0x00] + bigEndian16(ids.count)
            + ids.flatMap {
              bigEndian16($0) + bigEndian16(0) + bigEndian16(extents)
                + (0..<extents).flatMap { _ in
                  bigEndian32(UInt32(base)) + bigEndian32(UInt32(grid.count))
                }
            })
        return fullBox("meta", hdlr + pitm + iloc + iinf + iref + iprp)
      }
      let base = ftyp.count + meta(dataAt: 0).count + 8
      return ftyp + meta(dataAt: base) + box("mdat", grid)
    }

    /// Refused as corrupt, with libheif's (or the probe's) message containing `words` (where the
    /// host's libheif is too old, refused as such: ``HEIFCapability``).
    func expectCorrupt(
      _ file: [UInt8], saying words: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      guard HEIFCapability.decodes(Data(file), sourceLocation: sourceLocation) else { return }
      #expect(sourceLocation: sourceLocation) {
        try downscaler.decodePixels(from: Data(file), target: .fitting(maximumDimension: 64))
      } throws: { error in
        guard case ImagingError.corruptData(_, let detail) = error else { return false }
        return detail.localizedCaseInsensitiveContains(words)
      }
    }

    /// The format a refusal names is the file's `ftyp` brand, as libheif reads it too
    /// (`heif_get_file_mime_type`), even where libheif refuses the file before any coded image
    /// is read: these derived-image files are AVIF (major brand `avif`), and the same bytes
    /// branded `heic` are HEIF.
    @Test func aRefusalNamesTheFilesBrand() throws {
      let avif = Self.derivedImages(kind: "iden", ids: [1], irefs: [[(1, [1])]])
      var heic = avif
      let brands = [8, 16].map { avif[$0..<$0 + 4] }
      #expect(brands.allSatisfy { Array($0) == Array("avif".utf8) }, "major and first brand")
      for offset in [8, 16] { heic.replaceSubrange(offset..<offset + 4, with: Array("heic".utf8)) }
      for (file, format) in [(avif, ImageFormat.avif), (heic, .heif)] {
        guard HEIFCapability.decodes(Data(file)) else { continue }
        #expect {
          try downscaler.decodePixels(from: Data(file), target: .fitting(maximumDimension: 64))
        } throws: { error in
          guard case ImagingError.corruptData(format, _) = error else { return false }
          return "\(error)".hasPrefix("The \(format.name) data is corrupt: ")
        }
      }
    }

    @Test func anIdentityImageOfItselfIsCorrupt() {
      expectCorrupt(
        Self.derivedImages(kind: "iden", ids: [1], irefs: [[(1, [1])]]), saying: "reference cycle")
    }

    @Test(arguments: ["iden", "grid"])
    func derivedImagesOfEachOtherAreCorrupt(_ kind: String) {
      expectCorrupt(
        Self.derivedImages(kind: kind, ids: [1, 2], irefs: [[(1, [2]), (2, [1])]]),
        saying: "reference cycle")
    }

    /// An item whose extents cover the same bytes again and again (libheif copies them all into
    /// one buffer per decode: 32 extents over 16 MiB took 1.1 GB) stops at libheif's memory
    /// block limit, which is ``DecodingLimits/maximumMemoryByteCount`` or, while libheif parses,
    /// the file's size, whichever is smaller: 32 extents over 1 MiB are refused under an 8 MiB
    /// limit, and under the default one at the file's size.
    @Test func itemDataBeyondTheMemoryLimitIsRefused() {
      let repeated = Self.derivedImages(
        kind: "grid", ids: [1, 2], irefs: [[(1, [2])]], extents: 32, padding: 1 << 20)
      guard HEIFCapability.decodes(Data(repeated)) else { return }
      let small = DecodingOptions(limits: DecodingLimits(maximumMemoryByteCount: 8 << 20))
      #expect {
        try downscaler.decodePixels(
          from: Data(repeated), target: .fitting(maximumDimension: 64), options: small)
      } throws: { error in
        guard case ImagingError.corruptData(_, let detail) = error else { return false }
        return detail.contains("Security limit exceeded") && detail.contains("iloc")
      }
      #expect {
        try downscaler.decodePixels(from: Data(repeated), target: .fitting(maximumDimension: 64))
      } throws: { error in
        guard case ImagingError.corruptData(_, let detail) = error else { return false }
        return detail.contains("Security limit exceeded")
          && detail.contains("security limit of \(repeated.count) bytes")
      }
    }

    /// An `ispe` smaller than the coded stream's pictures (the decoders make pictures of the
    /// stream's size: 64 x 64 declared over an 8000 x 8000 AV1 stream took 471 MB against a
    /// 256 MiB limit) is refused by the stream-size probe, for AV1 and HEVC; the file as it is
    /// decodes.
    @Test(arguments: ["avif-8bit.avif", "heic-8bit.heic"])
    func aStreamLargerThanItsDeclaredSizeIsCorrupt(_ name: String) throws {
      let original = [UInt8](try resource(name, in: "Resources/formats"))
      let lying = try HEIFReproducerTests.understatedSize(name)
      #expect(lying != original, "the fixture declares its size")
      expectCorrupt(lying, saying: "coded data declares pictures larger")
      guard HEIFCapability.decodes(Data(original)) else { return }
      _ = try downscaler.decodePixels(from: Data(original), target: .fitting(maximumDimension: 64))
    }

    /// A reference box whose size runs past its parent: the walk stopped there while libheif 1.15
    /// read on and followed the cycle behind it (found by mutating a file); libheif 1.19 reads on
    /// too and finds the cycle.
    @Test func aReferenceBoxLargerThanItsParentIsCorrupt() throws {
      var file = Self.derivedImages(kind: "grid", ids: [1, 2], irefs: [[(1, [2]), (2, [1])]])
      let dimg = try #require(
        (0..<file.count - 4).first { Array(file[$0..<$0 + 4]) == Array("dimg".utf8) })
      file.replaceSubrange(dimg - 4..<dimg, with: bigEndian32(122))
      expectCorrupt(file, saying: "reference cycle")
    }

    /// A grid of 2 000 tiles (over the 1 024 references allowed), and a second `iref` box after
    /// it claiming one: the walk's count came from the last box; libheif reads the first and
    /// refuses it under ``DecodingLimits/maximumItemCount``.
    @Test func aSecondReferenceBoxIsCorrupt() {
      let tiles = [(from: 1, to: [Int](repeating: 2, count: 2_000))]
      let hidden = Self.derivedImages(kind: "grid", ids: [1, 2], irefs: [tiles, [(1, [2])]])
      expectCorrupt(hidden, saying: "exceeds the security limits of 1024 references")
      // Alone, the grid's count is refused as too large, as before.
      #expect(throws: ImagingError.self) {
        try downscaler.decodePixels(
          from: Data(Self.derivedImages(kind: "grid", ids: [1, 2], irefs: [tiles])),
          target: .fitting(maximumDimension: 64))
      }
    }
  }
#endif
