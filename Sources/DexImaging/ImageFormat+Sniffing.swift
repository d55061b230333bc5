import Foundation

extension ImageFormat {
  /// What the first bytes of `data` look like: a decodable format, or the name of what was seen
  /// so that ``ImagingError/unsupportedFormat(detected:)`` can say it.
  ///
  /// - Throws: ``ImagingError/emptyInput`` or ``ImagingError/unsupportedFormat(detected:)``.
  public static func sniff(_ data: Data) throws(ImagingError) -> ImageFormat {
    guard !data.isEmpty else { throw .emptyInput }
    let head = [UInt8](data.prefix(32))
    func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
      head.count >= offset + signature.count
        && Array(head[offset..<offset + signature.count]) == signature
    }
    func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

    if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
    if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if ascii("RIFF"), ascii("WEBP", at: 8) { return .webp }
    if ascii("ftyp", at: 4), let format = isoMediaFormat(data) { return format }
    throw .unsupportedFormat(detected: describeUnsupported(head, ascii: ascii, starts: starts))
  }

  /// HEIF-family brands (HEVC-coded images and the generic image brands).
  private static let heifBrands: Set<String> = [
    "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1",
  ]
  /// AVIF brands (AV1-coded images and sequences).
  private static let avifBrands: Set<String> = ["avif", "avis"]

  /// AVIF or HEIF from the `ftyp` box's major and compatible brands (at most 64 of them), or
  /// `nil` for other ISO media (MP4 video, CR3 raw...). An AVIF brand anywhere wins: AVIF files
  /// often carry `mif1` as their major brand.
  private static func isoMediaFormat(_ data: Data) -> ImageFormat? {
    let head = [UInt8](data.prefix(8 + 8 + 4 * 64))
    guard head.count >= 12 else { return nil }
    let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
    let end = Swift.min(head.count, Swift.max(12, size))
    func brand(at offset: Int) -> String {
      String(decoding: head[offset..<offset + 4], as: UTF8.self)
    }
    var brands = [brand(at: 8)]
    var offset = 16
    while offset + 4 <= end {
      brands.append(brand(at: offset))
      offset += 4
    }
    if brands.contains(where: avifBrands.contains) { return .avif }
    if heifBrands.contains(brands[0]) { return .heif }
    return nil
  }

  private static func describeUnsupported(
    _ head: [UInt8], ascii: (String, Int) -> Bool, starts: ([UInt8], Int) -> Bool
  ) -> String {
    if ascii("ftyp", 4), head.count >= 12 {
      let brand = String(decoding: head[8..<12], as: UTF8.self)
      switch brand {
      case "crx ": return "Canon CR3 raw"
      default: return "ISO media (brand \"\(brand.filter { $0.isASCII && !$0.isNewline })\")"
      }
    }
    if ascii("GIF87a", 0) || ascii("GIF89a", 0) { return "GIF" }
    if starts([0x49, 0x49, 0x2A, 0x00], 0) || starts([0x4D, 0x4D, 0x00, 0x2A], 0) {
      return "TIFF"
    }
    if ascii("BM", 0) { return "BMP" }
    if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20], 0) { return "JPEG 2000" }
    if starts([0xFF, 0x0A], 0) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20], 0) {
      return "JPEG XL"
    }
    if starts([0xFF, 0xD8], 0) { return "damaged JPEG (no marker after SOI)" }
    if ascii("%PDF", 0) { return "PDF" }
    if ascii("<?xml", 0) || ascii("<svg", 0) { return "SVG/XML" }
    if starts([0x00, 0x00, 0x01, 0x00], 0) { return "ICO" }
    let hex = head.prefix(4).map { byte in
      let digits = String(byte, radix: 16, uppercase: true)
      return digits.count == 1 ? "0" + digits : digits
    }
    return "unknown data (first bytes \(hex.joined(separator: " ")))"
  }
}
