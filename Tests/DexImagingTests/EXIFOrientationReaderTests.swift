import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

@Suite(.offCooperativePool) struct EXIFOrientationReaderTests {
  /// A TIFF block with one IFD0 entry (tag, type, count, value) in the given byte order.
  static func tiff(
    bigEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3, count: UInt32 = 1,
    value: UInt16 = 6, ifdOffset: UInt32 = 8, entryCount: UInt16 = 1
  ) -> [UInt8] {
    func u16(_ v: UInt16) -> [UInt8] {
      bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }
    func u32(_ v: UInt32) -> [UInt8] {
      bigEndian
        ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
        : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16))
    }
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
    bytes.withUnsafeBytes { EXIFOrientationReader.orientation(inJPEG: $0) }
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
      let found = data.withUnsafeBytes { EXIFOrientationReader.orientation(inJPEG: $0) }
      #expect(found?.rawValue == UInt8(n))
    }
    let plain = try resource("photo.jpg")
    #expect(plain.withUnsafeBytes { EXIFOrientationReader.orientation(inJPEG: $0) } == nil)
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
    #expect(tiff.withUnsafeBytes { EXIFOrientationReader.orientation(inTIFF: $0) } == .left)
  }
}
