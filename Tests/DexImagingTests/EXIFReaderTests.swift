import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

@Suite(.offCooperativePool) struct EXIFReaderTests {
  /// Writers of 16- and 32-bit values in a byte order.
  static func u16(_ bigEndian: Bool) -> (UInt16) -> [UInt8] {
    { v in bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
  }
  static func u32(_ bigEndian: Bool) -> (UInt32) -> [UInt8] {
    let u16 = Self.u16(bigEndian)
    return { v in
      bigEndian
        ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
        : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16))
    }
  }

  /// A TIFF block with one IFD0 entry (tag, type, count, value) in the given byte order.
  static func tiff(
    bigEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3, count: UInt32 = 1,
    value: UInt16 = 6, ifdOffset: UInt32 = 8, entryCount: UInt16 = 1
  ) -> [UInt8] {
    let (u16, u32) = (Self.u16(bigEndian), Self.u32(bigEndian))
    var bytes: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
    bytes += u16(42) + u32(ifdOffset) + u16(entryCount)
    bytes += u16(tag) + u16(type) + u32(count) + u16(value) + u16(0) + u32(0)
    return bytes
  }

  static func jpeg(withAPP1 tiff: [UInt8]) -> [UInt8] {
    let body = Array("Exif".utf8) + [0, 0] + tiff
    let length = body.count + 2
    return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + [0xFF, 0xD9]
  }

  static func orientation(_ bytes: [UInt8]) -> ImageOrientation? {
    bytes.withUnsafeBytes { EXIFReader.orientation(inJPEG: $0) }
  }

  @Test(arguments: [true, false])
  func readsBothByteOrders(bigEndian: Bool) {
    for value in UInt16(1)...8 {
      let jpeg = Self.jpeg(withAPP1: Self.tiff(bigEndian: bigEndian, value: value))
      #expect(Self.orientation(jpeg)?.rawValue == UInt8(value))
    }
  }

  @Test func readsOrientationFromRealFiles() throws {
    for n in 1...8 {
      let data = try resource("orientation-\(n).jpg")
      let found = data.withUnsafeBytes { EXIFReader.orientation(inJPEG: $0) }
      #expect(found?.rawValue == UInt8(n))
    }
    let plain = try resource("photo.jpg")
    #expect(plain.withUnsafeBytes { EXIFReader.orientation(inJPEG: $0) } == nil)
  }

  @Test func malformedEXIFIsIgnored() {
    let cases: [[UInt8]] = [
      Self.tiff(bigEndian: false, ifdOffset: 0xFFFF_FFF0),  // IFD offset past the end
      Self.tiff(bigEndian: true, ifdOffset: 4),  // IFD inside the header
      Self.tiff(bigEndian: false, entryCount: 0xFFFF),  // entry count runs past the end
      Self.tiff(bigEndian: true, type: 2),  // ASCII instead of SHORT
      Self.tiff(bigEndian: false, value: 0),  // out of range
      Self.tiff(bigEndian: true, value: 9),  // out of range
      Self.tiff(bigEndian: false, count: 0),  // no components
      Self.tiff(bigEndian: false, tag: 0x0100),  // no orientation tag at all
      [0x49, 0x4D, 42, 0, 8, 0, 0, 0],  // mixed byte order mark
      [0x49, 0x49, 43, 0, 8, 0, 0, 0],  // wrong magic
      [0x49, 0x49],  // too short
    ]
    for tiff in cases {
      #expect(Self.orientation(Self.jpeg(withAPP1: tiff)) == nil)
    }
  }

  @Test func segmentLengthPastTheEndIsIgnored() {
    var jpeg = Self.jpeg(withAPP1: Self.tiff(bigEndian: false))
    jpeg[4] = 0xFF  // APP1 claims ~65 KB
    #expect(Self.orientation(jpeg) == nil)
    #expect(Self.orientation([0xFF, 0xD8, 0xFF, 0xE1, 0x00]) == nil)
    #expect(Self.orientation([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01, 0, 0]) == nil)  // length < 2
  }

  @Test func eXIfPayloadWithoutHeaderIsReadAsTIFF() {
    let tiff = Self.tiff(bigEndian: true, value: 8)
    #expect(tiff.withUnsafeBytes { EXIFReader.orientation(inTIFF: $0) } == .left)
  }
  // MARK: Dates

  static let original = EXIFDate(
    year: 2019, month: 7, day: 14, hour: 9, minute: 26, second: 53, tag: .dateTimeOriginal)!
  static let dateTime = EXIFDate(
    year: 2023, month: 1, day: 2, hour: 3, minute: 4, second: 5, tag: .dateTime)!

  /// A TIFF block laid out as cameras write it: IFD0 (orientation 6, DateTime, the Exif IFD
  /// pointer), the Exif IFD (DateTimeOriginal), then the strings. The overrides make it hostile.
  static func dateTIFF(
    bigEndian: Bool, dateTime: String? = "2023:01:02 03:04:05",
    original: String? = "2019:07:14 09:26:53", exifPointer: UInt32? = nil,
    originalOffset: UInt32? = nil, originalCount: UInt32 = 20, originalType: UInt16 = 2,
    exifEntryCount: UInt16? = nil
  ) -> [UInt8] {
    let (u16, u32) = (Self.u16(bigEndian), Self.u32(bigEndian))
    func entry(_ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: [UInt8]) -> [UInt8] {
      u16(tag) + u16(type) + u32(count) + value
    }
    let hasExif = original != nil || exifPointer != nil
    let ifd0Count = 1 + (dateTime == nil ? 0 : 1) + (hasExif ? 1 : 0)
    let exifOffset = 8 + 2 + ifd0Count * 12 + 4
    let dataOffset = exifOffset + (original == nil ? 0 : 2 + 12 + 4)
    var strings: [UInt8] = []
    var ifd0 = entry(0x0112, 3, 1, u16(6) + u16(0))
    if let dateTime {
      ifd0 += entry(0x0132, 2, 20, u32(UInt32(dataOffset + strings.count)))
      strings += Array(dateTime.utf8) + [0]
    }
    if hasExif { ifd0 += entry(0x8769, 4, 1, u32(exifPointer ?? UInt32(exifOffset))) }
    var exif: [UInt8] = []
    if let original {
      let offset = originalOffset ?? UInt32(dataOffset + strings.count)
      exif =
        u16(exifEntryCount ?? 1)
        + entry(0x9003, originalType, originalCount, u32(offset)) + u32(0)
      strings += Array(original.utf8) + [0]
    }
    var bytes: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
    bytes += u16(42) + u32(8) + u16(UInt16(ifd0Count)) + ifd0 + u32(0) + exif + strings
    return bytes
  }

  static func metadata(_ tiff: [UInt8]) -> EXIFReader.Metadata {
    tiff.withUnsafeBytes { EXIFReader.metadata(inTIFF: $0) }
  }

  @Test(arguments: [true, false])
  func readsDateTimeOriginalBeforeDateTime(bigEndian: Bool) {
    let found = Self.metadata(Self.dateTIFF(bigEndian: bigEndian))
    #expect(found.date == Self.original)
    #expect(found.orientation == .right)
    let inJPEG = Self.jpeg(withAPP1: Self.dateTIFF(bigEndian: bigEndian)).withUnsafeBytes {
      EXIFReader.metadata(inJPEG: $0)
    }
    #expect(inJPEG == found)
    #expect(found.date?.description == "2019-07-14T09:26:53")
  }

  @Test func fallsBackToDateTime() {
    #expect(Self.metadata(Self.dateTIFF(bigEndian: false, original: nil)).date == Self.dateTime)
    #expect(Self.metadata(Self.dateTIFF(bigEndian: true, dateTime: nil)).date == Self.original)
    #expect(Self.metadata(Self.dateTIFF(bigEndian: true, dateTime: nil, original: nil)).date == nil)
  }

  /// Offsets past the end, a pointer loop, wrong types and counts, impossible dates: no date,
  /// and the orientation beside them is still read.
  @Test(arguments: [true, false])
  func hostileDatesAreIgnored(bigEndian: Bool) {
    let cases: [(String, [UInt8])] = [
      (
        "Exif IFD past the end",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, exifPointer: 0x7FFF_FFF0)
      ),
      (
        "Exif IFD at the last byte",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, exifPointer: 0xFFFF_FFFF)
      ),
      (
        "Exif IFD loops back to IFD0",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, exifPointer: 8)
      ),
      (
        "Exif IFD inside the header",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, exifPointer: 4)
      ),
      (
        "Exif IFD runs past the end",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, exifEntryCount: 0xFFFF)
      ),
      (
        "date past the end",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, originalOffset: 0xFFFF_FFF0)
      ),
      (
        "date cut by the end",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, originalOffset: 60)
      ),
      (
        "date inside the header",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, originalOffset: 2)
      ),
      ("date too short", Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, originalCount: 4)),
      ("date as SHORT", Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, originalType: 3)),
      (
        "all zero",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, original: "0000:00:00 00:00:00")
      ),
      (
        "blank", Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, original: "    :  :     :  :  ")
      ),
      (
        "29 February 2019",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, original: "2019:02:29 10:00:00")
      ),
      (
        "hour 24",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, original: "2019:07:14 24:00:00")
      ),
      (
        "ISO form",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, original: "2019-07-14T09:26:53")
      ),
      (
        "a letter",
        Self.dateTIFF(bigEndian: bigEndian, dateTime: nil, original: "2019:07:14 09:26:5x")
      ),
    ]
    for (name, tiff) in cases {
      let found = Self.metadata(tiff)
      #expect(found.date == nil, "\(name)")
      #expect(found.orientation == .right, "\(name)")
    }
  }

  /// Every cut of a JPEG's EXIF segment (the file ends inside it): nothing read, nothing
  /// crashes; every cut of the bare block: at most a date it really holds.
  @Test func truncatedEXIFGivesNoDate() {
    let tiff = Self.dateTIFF(bigEndian: false)
    let jpeg = Self.jpeg(withAPP1: tiff)
    for length in 0..<(jpeg.count - 2) {  // up to the segment's end (EOI follows)
      let found = Array(jpeg[0..<length]).withUnsafeBytes { EXIFReader.metadata(inJPEG: $0) }
      #expect(found == EXIFReader.Metadata(), "cut at \(length)")
    }
    var dates: Set<EXIFDate?> = []
    for length in 0...tiff.count {
      dates.insert(Self.metadata(Array(tiff[0..<length])).date)
    }
    #expect(dates == [nil, Self.dateTime, Self.original])
  }

  @Test func datesParseAndDecodeOnlyWhenValid() throws {
    #expect(EXIFDate(exifText: "2024:02:29 23:59:60", tag: .dateTime)?.day == 29)
    #expect(EXIFDate(exifText: "2100:02:29 00:00:00", tag: .dateTime) == nil)
    #expect(EXIFDate(exifText: "2019:07:14 09:26:53 ", tag: .dateTime) == nil)
    let json = try JSONEncoder().encode(Self.original)
    #expect(try JSONDecoder().decode(EXIFDate.self, from: json) == Self.original)
    let bad = Data(
      #"{"tag":"dateTime","year":2019,"month":13,"day":1,"hour":0,"minute":0,"second":0}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(EXIFDate.self, from: bad) }
  }
}
