import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

@Suite(.offCooperativePool) struct ImageFormatSniffingTests {
  @Test func recognisesJPEGAndPNGFromMagicBytes() throws {
    #expect(try ImageFormat.sniff(resource("photo.jpg")) == .jpeg)
    #expect(try ImageFormat.sniff(resource("png-rgb8.png")) == .png)
    #expect(
      try ImageFormat.sniff(Data(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)))
        == .webp)
    #expect(
      try ImageFormat.sniff(Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0])) == .heif)
    #expect(
      try ImageFormat.sniff(Data([0, 0, 0, 0x18] + Array("ftypmif1".utf8) + [0, 0, 0, 0])) == .heif)
    #expect(
      try ImageFormat.sniff(Data([0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0])) == .avif)
  }

  @Test func emptyDataIsEmptyInput() {
    #expect(throws: ImagingError.emptyInput) { try ImageFormat.sniff(Data()) }
  }

  @Test(
    arguments: [
      (Array("GIF89a".utf8) + [1, 0, 1, 0], "GIF"),
      ([0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 0], "Canon CR3 raw"),
      ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], "TIFF"),
      ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], "TIFF"),
      (Array("BM".utf8) + [0x36, 0, 0, 0, 0, 0], "BMP"),
      ([0x13, 0x37, 0xC0, 0xDE, 0x00], "unknown data (first bytes 13 37 C0 DE)"),
    ] as [([UInt8], String)])
  func otherFormatsAreNamed(bytes: [UInt8], expected: String) {
    #expect(throws: ImagingError.unsupportedFormat(detected: expected)) {
      try ImageFormat.sniff(Data(bytes))
    }
  }

  @Test func unsupportedFormatMessageNamesWhatWasSeen() {
    let error = ImagingError.unsupportedFormat(detected: "GIF")
    #expect(error.description.contains("GIF"))
    #expect(error.description.contains("JPEG, PNG, HEIF (HEIC), AVIF and WebP"))
  }
}
