#if os(Linux) && SystemImageCodecs
  import CDexImageShim
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// HEIC and AVIF carry their EXIF date as JPEG, PNG and WebP do: libheif hands over the primary
  /// image's `Exif` item and DexImaging skips its TIFF header offset (bounds-checked) before the
  /// EXIF reader. The fixtures come from the real encoders (Scripts/imaging-format-fixtures,
  /// `make.py --exif`); the hostile items are heic-exif-date.heic with its `Exif` item rewritten.
  @Suite(.offCooperativePool) struct HEIFEXIFDateTests {
    let downscaler = ImageDownscaler()
    static let options = DownscaleOptions(maximumDimension: 100)

    @Test(arguments: ["heic-exif-date.heic", "avif-exif-date.avif"])
    func theDateIsReadFromHEICAndAVIF(_ name: String) throws {
      let data = try formatResource(name)
      guard HEIFCapability.decodes(data) else { return }
      let result = try downscaler.downscale(data, options: Self.options)
      // DateTimeOriginal, not the different DateTime beside it.
      #expect(result.exifDate == EXIFReaderTests.original)
    }

    @Test(arguments: ["heic-8bit.heic", "avif-8bit.avif"])
    func noExifItemGivesNoDate(_ name: String) throws {
      let data = try formatResource(name)
      guard HEIFCapability.decodes(data) else { return }
      #expect(try downscaler.downscale(data, options: Self.options).exifDate == nil)
    }

    /// avif-exif-date.avif's EXIF says orientation 6 and its container has the matching `irot`
    /// (avifenc turned the one into the other): shown 60 x 96 once, never rotated again.
    @Test func theEXIFOrientationIsNotAppliedOnTopOfTheContainers() throws {
      let data = try formatResource("avif-exif-date.avif")
      guard HEIFCapability.decodes(data) else { return }
      let result = try downscaler.downscale(data, options: Self.options)
      #expect(result.exifDate == EXIFReaderTests.original)
      #expect(result.appliedOrientation == .up)
      #expect(result.sourcePixelWidth == 60 && result.sourcePixelHeight == 96)
      #expect(result.pixelWidth == 60 && result.pixelHeight == 96)  // never upscaled
    }

    // MARK: Hostile Exif items

    static func be32(_ value: Int) -> [UInt8] {
      [
        UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF),
        UInt8(value & 0xFF),
      ]
    }

    /// heic-exif-date.heic's `Exif` item data: the offset prefix (0) and the TIFF block, the last
    /// bytes of the file (heif-enc writes it after the coded image, at the end of `mdat`).
    static func original() throws -> (file: [UInt8], start: Int) {
      let file = [UInt8](try formatResource("heic-exif-date.heic"))
      let magic: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A]
      let tiff = try #require(
        (0...(file.count - 4)).last { Array(file[$0..<($0 + 4)]) == magic })
      #expect(file[(tiff - 4)..<tiff].allSatisfy { $0 == 0 })
      return (file, tiff - 4)
    }

    /// heic-exif-date.heic with its `Exif` item's data replaced by `block`, the item's `iloc`
    /// extent declaring `declaredLength` (the block's length unless told) and `mdat` resized to
    /// hold the block. The extent is found by its bytes (heif-enc's `iloc` has 4-byte base
    /// offsets, offsets and lengths: base = the block's position, one extent, offset 0, length).
    static func heic(exifBlock block: [UInt8], declaredLength: Int? = nil) throws -> Data {
      var (file, start) = try original()
      let extent = be32(start) + [0, 1] + be32(0) + be32(file.count - start)
      let found = (0...(file.count - extent.count)).filter {
        Array(file[$0..<($0 + extent.count)]) == extent
      }
      let at = try #require(found.count == 1 ? found.first : nil, "\(found)")
      file.replaceSubrange((at + 10)..<(at + 14), with: be32(declaredLength ?? block.count))
      var box = 0
      while box + 8 <= file.count, Array(file[(box + 4)..<(box + 8)]) != Array("mdat".utf8) {
        box += file[box..<(box + 4)].reduce(0) { $0 << 8 | Int($1) }
      }
      try #require(box + 8 <= file.count)
      let grown = file.count - box - (file.count - start) + block.count
      file.replaceSubrange(box..<(box + 4), with: be32(grown))
      return Data(file[..<start] + block)
    }

    /// The item's own data, put back by the rewriter: the date (so that the cases below fail
    /// only for what they break).
    @Test func theRewrittenItemKeepsItsDate() throws {
      let (file, start) = try Self.original()
      let same = try Self.heic(exifBlock: Array(file[start...]))
      #expect(same == Data(file))
      let moved = try Self.heic(
        exifBlock: Self.be32(6) + Array("Exif".utf8) + [0, 0] + file[(start + 4)...])
      guard HEIFCapability.decodes(moved) else { return }
      #expect(
        try downscaler.downscale(moved, options: Self.options).exifDate == EXIFReaderTests.original)
    }

    /// Offset prefixes that point past the block, or at the wrong place, a block too short for
    /// its prefix, an empty block: the photo decodes, with no date.
    @Test func aBadOffsetPrefixGivesNoDate() throws {
      let (file, start) = try Self.original()
      let tiff = Array(file[(start + 4)...])
      let cases: [(String, [UInt8])] = [
        ("offset past the end", Self.be32(0xFFFF_FFF0) + tiff),
        ("offset one past the end", Self.be32(tiff.count + 1) + tiff),
        ("offset at the end", Self.be32(tiff.count) + tiff),
        ("offset in the middle", Self.be32(6) + tiff),
        ("no TIFF after the offset", Self.be32(0) + Array("Exif".utf8) + [0, 0] + tiff),
        ("shorter than the prefix", [0, 0]),
        ("prefix only", Self.be32(0)),
        ("empty", []),
      ]
      for (name, block) in cases {
        let data = try Self.heic(exifBlock: block)
        guard HEIFCapability.decodes(data) else { continue }
        let result = try downscaler.downscale(data, options: Self.options)
        #expect(result.exifDate == nil, "\(name)")
        #expect(result.pixelWidth == 96 && result.pixelHeight == 60, "\(name)")
      }
    }

    /// Every cut of the block (the item ends inside its TIFF data): the photo decodes, with at
    /// most a date the cut block really holds.
    @Test func aTruncatedBlockGivesAtMostTheDateItHolds() throws {
      let (file, start) = try Self.original()
      guard HEIFCapability.decodes(Data(file)) else { return }
      let block = Array(file[start...])
      var dates: [Int: EXIFDate] = [:]
      for length in 0..<block.count {
        let result = try downscaler.downscale(
          Self.heic(exifBlock: Array(block[..<length])), options: Self.options)
        #expect(result.pixelWidth == 96, "cut at \(length)")
        dates[length] = result.exifDate
      }
      // In the TIFF block the DateTime's 19 characters end at 87, DateTimeOriginal's at 107
      // (then its terminator, the block's last byte).
      #expect(dates.keys.min() == 4 + 87)
      #expect(dates.filter { $0.value == EXIFReaderTests.original }.keys.sorted() == [4 + 107])
      #expect(Set(dates.values) == [EXIFReaderTests.dateTime, EXIFReaderTests.original])
    }

    /// A block longer than DEX_MAX_EXIF_BYTES is not copied out (no date, the photo decodes);
    /// one of exactly that length is.
    @Test func anOversizedBlockIsNotRead() throws {
      let (file, start) = try Self.original()
      let block = Array(file[start...])
      let limit = Int(DEX_MAX_EXIF_BYTES)
      let atLimit = block + [UInt8](repeating: 0, count: limit - block.count)
      let data = try Self.heic(exifBlock: atLimit)
      guard HEIFCapability.decodes(data) else { return }
      let read = try downscaler.downscale(data, options: Self.options)
      #expect(read.exifDate == EXIFReaderTests.original)
      let over = try downscaler.downscale(
        Self.heic(exifBlock: atLimit + [0]), options: Self.options)
      #expect(over.exifDate == nil)
      #expect(over.pixelWidth == 96 && over.pixelHeight == 60)
    }

    /// An item declaring more bytes than the file holds: libheif refuses the file while it
    /// parses (it reads every metadata item then), a typed error.
    @Test func aBlockDeclaredPastTheFilesEndIsATypedError() throws {
      let (file, start) = try Self.original()
      let block = Array(file[start...])
      for declared in [block.count + 1, 0x7FFF_FFFF] {
        let data = try Self.heic(exifBlock: block, declaredLength: declared)
        guard HEIFCapability.decodes(data) else { continue }
        #expect(throws: ImagingError.self, "\(declared)") {
          try downscaler.downscale(data, options: Self.options)
        }
      }
    }
  }
#endif
