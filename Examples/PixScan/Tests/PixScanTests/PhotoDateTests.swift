import DexImaging
import DexKitTesting
import Foundation
import Testing

@testable import PixScanCore

/// The delete queue preview's date over HTTP: the EXIF date of a real JPEG (written by Pillow,
/// see Resources/NOTICE.md) and of the same photo as a HEIC (its `Exif` item), none for a photo
/// without EXIF (the page then shows the file time), and none, without a crash, for hostile EXIF.
@Suite("PixScan: the preview's EXIF date")
struct PhotoDateTests {
  static func fixture(_ name: String, extension: String = "jpg") throws -> Data {
    guard
      let url = Bundle.module.url(
        forResource: name, withExtension: `extension`, subdirectory: "Resources")
    else { throw CocoaError(.fileNoSuchFile) }
    return try Data(contentsOf: url)
  }

  /// `tiff` as an EXIF APP1 segment placed right after the SOI of `jpeg`, ahead of its own.
  static func withEXIF(_ tiff: [UInt8], before jpeg: Data) -> Data {
    let body = Array("Exif".utf8) + [0, 0] + tiff
    let length = body.count + 2
    let segment = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    return jpeg.prefix(2) + Data(segment) + jpeg.dropFirst(2)
  }

  /// A little-endian TIFF block: IFD0 with `entries` (tag, type, count, value or offset) and
  /// `tail` after it.
  static func tiff(_ entries: [(UInt16, UInt16, UInt32, UInt32)], tail: [UInt8] = []) -> [UInt8] {
    func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] { u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
    var bytes: [UInt8] = [0x49, 0x49] + u16(42) + u32(8) + u16(UInt16(entries.count))
    for (tag, type, count, value) in entries {
      bytes += u16(tag) + u16(type) + u32(count) + u32(value)
    }
    return bytes + u32(0) + tail
  }

  static func exifDate(_ answer: PixScanHTTPTests.Answer) -> [String: Any]? {
    answer.json?["exifDate"] as? [String: Any]
  }

  /// Year, month, day, hour, minute and second of an answer's date.
  static func fields(_ date: [String: Any]?) -> [Int?] {
    ["year", "month", "day", "hour", "minute", "second"].map { date?[$0] as? Int }
  }

  @Test func theTakenDateOfARealPhotoComesOverHTTP() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    try folder.write(try Self.fixture("exif-date"), to: "taken.jpg")
    try folder.write(try Self.fixture("exif-datetime-only"), to: "dated.jpg")
    try folder.write(try Self.fixture("exif-date", extension: "heic"), to: "iphone.heic")
    try folder.addSamplePhotos([.cat])
    try await PixScanHTTPTests.withServer(folder, trash: data.file("Trash")) { send in
      let taken = try await send("GET", "/api/info?path=taken.jpg", nil)
      #expect(taken.status == 200)
      let date = Self.exifDate(taken)
      // DateTimeOriginal (2019-07-14 09:26:53), not the file's DateTime (2023-01-02).
      #expect(date?["tag"] as? String == "dateTimeOriginal")
      #expect(Self.fields(date) == [2019, 7, 14, 9, 26, 53])
      #expect(taken.json?["pixelWidth"] as? Int == 320 && taken.json?["pixelHeight"] as? Int == 240)

      // The same photo as a HEIC: the same date, from its Exif item. Where the host's libheif
      // is older than 1.19 (Ubuntu 24.04), DexImaging refuses HEIC by design, and so does the
      // server, with the reason the SDK reports.
      let heic = try await send("GET", "/api/info?path=iphone.heic", nil)
      if let refusal = ImageDownscaler.decoderUnavailableReason(for: .heif) {
        let message = (heic.json?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(heic.status == 422 && heic.errorCode == "imaging_failed")
        #expect(message.contains(refusal) && refusal.contains("install 1.19"), "\(message)")
      } else {
        #expect(heic.status == 200 && heic.json?["format"] as? String == "heif")
        let heicDate = Self.exifDate(heic)
        #expect(heicDate?["tag"] as? String == "dateTimeOriginal")
        #expect(Self.fields(heicDate) == [2019, 7, 14, 9, 26, 53])
        #expect(
          heic.json?["pixelWidth"] as? Int == 320 && heic.json?["pixelHeight"] as? Int == 240)
      }

      let dated = Self.exifDate(try await send("GET", "/api/info?path=dated.jpg", nil))
      #expect(dated?["tag"] as? String == "dateTime")
      #expect(dated?["year"] as? Int == 2021 && dated?["day"] as? Int == 28)

      // No EXIF: no date; the page shows the file's time, which the answer carries.
      let plain = try await send("GET", "/api/info?path=cat.jpg", nil)
      #expect(plain.status == 200 && Self.exifDate(plain) == nil)
      let photo = plain.json?["photo"] as? [String: Any]
      let modified =
        try FileManager.default.attributesOfItem(atPath: folder.file("cat.jpg"))[
          .modificationDate] as? Date
      let milliseconds = (photo?["modifiedMilliseconds"] as? Int).map { Double($0) / 1000 }
      #expect(
        milliseconds != nil && abs(milliseconds! - (modified?.timeIntervalSince1970 ?? 0)) < 0.002)

      // The page says which date it shows.
      let page = String(decoding: try await send("GET", "/", nil).body, as: UTF8.self)
      #expect(page.contains("taken ") && page.contains("file modified "))
    }
  }

  /// Hostile EXIF ahead of the real one (the reader takes the first EXIF segment): a pointer
  /// loop, offsets past the end, a date cut by the segment's end, a huge entry count. Each
  /// photo still decodes, with no date; a file cut inside its EXIF is a typed error; the server
  /// answers on.
  @Test func hostileEXIFGivesNoDateAndNoCrash() async throws {
    let (folder, data) = (try TemporaryFolder(), try TemporaryFolder())
    let real = try Self.fixture("exif-date")
    let date = Array("2019:07:14 09:26:53".utf8) + [0]
    var hugeCount = Self.tiff([(0x0132, 2, 20, 26)], tail: date)
    (hugeCount[8], hugeCount[9]) = (0xFF, 0xFF)  // IFD0 claims 65 535 entries
    let hostile: [(String, [UInt8])] = [
      ("loop", Self.tiff([(0x8769, 4, 1, 8)])),  // the Exif IFD is IFD0 again
      ("exif-past-end", Self.tiff([(0x8769, 4, 1, 0x7FFF_FFF0)])),
      ("date-past-end", Self.tiff([(0x0132, 2, 20, 0xFFFF_FFF0)], tail: date)),
      ("date-cut", Self.tiff([(0x0132, 2, 20, 26)], tail: Array(date[0..<10]))),
      ("huge-count", hugeCount),
    ]
    // The date-cut block's string starts right after IFD0 (8 + 2 + 12 + 4 = 26): its control
    // with the whole string reads, so the cases above fail only for what they break.
    let control = Self.tiff([(0x0132, 2, 20, 26)], tail: date)
    try folder.write(Self.withEXIF(control, before: real), to: "control.jpg")
    for (name, tiff) in hostile {
      try folder.write(Self.withEXIF(tiff, before: real), to: "\(name).jpg")
    }
    // The whole file cut inside its EXIF segment.
    try folder.write(real.prefix(60), to: "truncated.jpg")
    try await PixScanHTTPTests.withServer(folder, trash: data.file("Trash")) { send in
      let control = Self.exifDate(try await send("GET", "/api/info?path=control.jpg", nil))
      #expect(control?["tag"] as? String == "dateTime" && control?["year"] as? Int == 2019)
      for (name, _) in hostile {
        let answer = try await send("GET", "/api/info?path=\(name).jpg", nil)
        #expect(answer.status == 200, "\(name)")
        #expect(answer.json?["pixelWidth"] as? Int == 320, "\(name)")
        #expect(Self.exifDate(answer) == nil, "\(name)")
      }
      let truncated = try await send("GET", "/api/info?path=truncated.jpg", nil)
      #expect(truncated.status >= 400 && truncated.errorCode != nil)
      #expect(try await send("GET", "/api/info?path=control.jpg", nil).status == 200)
    }
  }
}
