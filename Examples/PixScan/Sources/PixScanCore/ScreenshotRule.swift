/// How PixScan tells a screenshot from a photo, for the screenshots-only filter.
///
/// A file is a screenshot when either
/// 1. its name says so: it contains `screenshot`, `screen shot` or `screen_shot` (any case), the
///    names macOS, iOS, Android, GNOME and KDE give them; or
/// 2. it is a PNG without camera metadata (no `eXIf` chunk before the image data) whose size is
///    screen-like: at least 320 × 480 and a long-to-short side ratio within 1 % of a display's
///    (4:3, 3:2, 16:10, 16:9, 18:9, 19:9, 19.5:9, 20:9, 21:9).
///
/// Cameras write JPEG or HEIC with EXIF, so a PNG without EXIF at a display's proportions is
/// almost always a capture of a screen. Only the first ``headerByteCount`` bytes of a file are
/// read.
public enum ScreenshotRule {
  /// How many bytes of a file the rule reads (the PNG chunks before the image data).
  public static let headerByteCount = 64 << 10

  /// The display proportions (long side over short side) a screenshot has.
  static let screenRatios: [Double] = [
    4.0 / 3, 3.0 / 2, 16.0 / 10, 16.0 / 9, 18.0 / 9, 19.0 / 9, 19.5 / 9, 20.0 / 9, 21.0 / 9,
  ]

  /// Whether a file named `fileName` whose first bytes are `header` is a screenshot.
  public static func isScreenshot(fileName: String, header: some Collection<UInt8>) -> Bool {
    let name = fileName.lowercased()
    if name.contains("screenshot") || name.contains("screen shot") || name.contains("screen_shot") {
      return true
    }
    guard let png = PNGHeader(Array(header.prefix(headerByteCount))), !png.hasEXIF else {
      return false
    }
    return isScreenSized(width: png.width, height: png.height)
  }

  /// Whether `width` × `height` has a display's size and proportions.
  public static func isScreenSized(width: Int, height: Int) -> Bool {
    let long = max(width, height)
    let short = min(width, height)
    guard short >= 320, long >= 480 else { return false }
    let ratio = Double(long) / Double(short)
    return screenRatios.contains { abs(ratio - $0) / $0 <= 0.01 }
  }
}

/// The parts of a PNG's header the screenshot rule needs: its size and whether it has EXIF.
struct PNGHeader {
  var width: Int
  var height: Int
  var hasEXIF: Bool

  /// Parses the signature, `IHDR` and the chunks up to the first `IDAT` (or the end of
  /// `bytes`); `nil` when `bytes` is not a PNG.
  init?(_ bytes: [UInt8]) {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count >= 33, Array(bytes[0..<8]) == signature,
      bytes[12..<16].elementsEqual("IHDR".utf8)
    else { return nil }
    width = Self.uint32(bytes, at: 16)
    height = Self.uint32(bytes, at: 20)
    hasEXIF = false
    var offset = 8
    while offset + 8 <= bytes.count {
      let length = Self.uint32(bytes, at: offset)
      let type = bytes[(offset + 4)..<(offset + 8)]
      if type.elementsEqual("eXIf".utf8) {
        hasEXIF = true
        break
      }
      if type.elementsEqual("IDAT".utf8) { break }
      let next = offset + 12 + length
      guard next > offset else { break }
      offset = next
    }
  }

  private static func uint32(_ bytes: [UInt8], at offset: Int) -> Int {
    bytes[offset..<(offset + 4)].reduce(0) { ($0 << 8) | Int($1) }
  }
}
