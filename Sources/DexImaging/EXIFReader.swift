/// Reads what DexImaging uses of a photo's EXIF: the orientation tag (0x0112) and the date
/// (DateTimeOriginal 0x9003 in the Exif IFD, else DateTime 0x0132 in IFD0), from a JPEG's APP1
/// segment, a raw TIFF/EXIF block (PNG's eXIf, WebP's EXIF) or a HEIF `Exif` item.
///
/// Every read is bounds-checked and the walk is bounded: IFD0 and at most one Exif IFD (never a
/// chain of IFDs, so a pointer loop cannot hold it), each wholly inside the block; anything
/// malformed (bad byte order mark, offsets past the end, wrong type, value out of range) yields
/// no value, so broken EXIF is ignored, never fatal.
enum EXIFReader {
  /// What was found; `nil` fields were absent or malformed.
  struct Metadata: Sendable, Hashable {
    /// The orientation tag's value.
    var orientation: ImageOrientation?
    /// DateTimeOriginal when it parses, else DateTime.
    var date: EXIFDate?
  }

  /// The orientation declared in the first EXIF APP1 segment before the first scan, if any.
  static func orientation(inJPEG bytes: UnsafeRawBufferPointer) -> ImageOrientation? {
    metadata(inJPEG: bytes).orientation
  }

  /// The metadata in the first EXIF APP1 segment before the first scan (empty when none).
  static func metadata(inJPEG bytes: UnsafeRawBufferPointer) -> Metadata {
    guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return Metadata() }
    var position = 2
    var segments = 0
    while position + 4 <= bytes.count, segments < 256 {
      guard bytes[position] == 0xFF else { return Metadata() }
      let marker = bytes[position + 1]
      if marker == 0xFF {  // fill byte
        position += 1
        continue
      }
      if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
        position += 2
        continue
      }
      // Image data starts: no EXIF before it.
      if marker == 0xDA || marker == 0xD9 { return Metadata() }
      let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
      guard length >= 2, position + 2 + length <= bytes.count else { return Metadata() }
      let body = position + 4
      let bodyLength = length - 2
      if marker == 0xE1, bodyLength >= 14,
        bytes[body] == 0x45, bytes[body + 1] == 0x78, bytes[body + 2] == 0x69,
        bytes[body + 3] == 0x66, bytes[body + 4] == 0, bytes[body + 5] == 0
      {
        let tiff = UnsafeRawBufferPointer(rebasing: bytes[(body + 6)..<(body + bodyLength)])
        return metadata(inTIFF: tiff)
      }
      position += 2 + length
      segments += 1
    }
    return Metadata()
  }

  /// The metadata in an EXIF block of `size` bytes that `copy` writes into a buffer of that
  /// size (a decoder's copy-out call, returning a shim status), read by `read` (a raw TIFF block
  /// unless told otherwise); empty when there is no block, it cannot be copied or it does not
  /// parse. The decoder bounds `size` before it is reported.
  static func metadata(
    exifSize size: Int32,
    reading read: (UnsafeRawBufferPointer) -> Metadata = { metadata(inTIFF: $0) },
    copy: (UnsafeMutablePointer<UInt8>, Int) -> Int32
  ) -> Metadata {
    guard size > 0 else { return Metadata() }
    var exif = [UInt8](repeating: 0, count: Int(size))
    let status = exif.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { copy($0, buffer.count) } ?? -1
    }
    guard ShimStatus(status) == .ok else { return Metadata() }
    return exif.withUnsafeBytes { read($0) }
  }

  /// The metadata in a HEIF `Exif` item's data (ISO/IEC 23008-12 Annex A): a 4-byte big-endian
  /// offset from its end to the TIFF header (6 past an "Exif\0\0" prefix, 0 for a bare TIFF
  /// block), then the EXIF payload. Empty when the block is shorter than the offset field or
  /// the offset points past its end.
  static func metadata(inHEIFExif block: UnsafeRawBufferPointer) -> Metadata {
    guard block.count >= 4 else { return Metadata() }
    let offset = block[0..<4].reduce(0) { $0 << 8 | Int($1) }
    guard offset <= block.count - 4 else { return Metadata() }
    return metadata(inTIFF: UnsafeRawBufferPointer(rebasing: block[(4 + offset)...]))
  }

  /// The orientation in IFD0 of a TIFF structure ("II*\0" or "MM\0*" header).
  static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
    metadata(inTIFF: tiff).orientation
  }

  /// The orientation and date of a TIFF structure ("II*\0" or "MM\0*" header): IFD0, and the
  /// Exif IFD its pointer (0x8769) names.
  static func metadata(inTIFF tiff: UnsafeRawBufferPointer) -> Metadata {
    guard let reader = TIFFReader(tiff), reader.u16(2) == 42, let ifd0 = reader.u32(4),
      let entries = reader.entries(ofIFDAt: ifd0)
    else { return Metadata() }
    var result = Metadata()
    var dateTime: EXIFDate?
    var exifIFD: Int?
    var seenOrientation = false
    for entry in entries {
      guard let tag = reader.u16(entry) else { break }
      switch tag {
      case 0x0112 where !seenOrientation:
        seenOrientation = true
        result.orientation = reader.orientation(entry: entry)
      case 0x0132 where dateTime == nil:
        dateTime = reader.date(entry: entry, tag: .dateTime)
      case 0x8769 where exifIFD == nil:
        // LONG or IFD, one component; IFD0 itself is refused (a loop back).
        if let type = reader.u16(entry + 2), type == 4 || type == 13,
          reader.u32(entry + 4) == 1, let offset = reader.u32(entry + 8), offset != ifd0
        {
          exifIFD = offset
        }
      default: continue
      }
    }
    let original = exifIFD.flatMap { reader.entries(ofIFDAt: $0) }?.lazy
      .filter { reader.u16($0) == 0x9003 }.first
      .flatMap { reader.date(entry: $0, tag: .dateTimeOriginal) }
    result.date = original ?? dateTime
    return result
  }

  /// Bounds-checked reads in one TIFF block, in its byte order.
  private struct TIFFReader {
    let tiff: UnsafeRawBufferPointer
    let littleEndian: Bool

    init?(_ tiff: UnsafeRawBufferPointer) {
      guard tiff.count >= 8 else { return nil }
      switch (tiff[0], tiff[1]) {
      case (0x49, 0x49): littleEndian = true
      case (0x4D, 0x4D): littleEndian = false
      default: return nil
      }
      self.tiff = tiff
    }

    func u16(_ offset: Int) -> Int? {
      guard offset >= 0, offset + 2 <= tiff.count else { return nil }
      let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
      return littleEndian ? a | b << 8 : a << 8 | b
    }

    func u32(_ offset: Int) -> Int? {
      guard let low = u16(littleEndian ? offset : offset + 2),
        let high = u16(littleEndian ? offset + 2 : offset)
      else { return nil }
      return high << 16 | low
    }

    /// The offsets of the 12-byte entries of the IFD at `offset`; `nil` unless the whole IFD
    /// lies inside the block, after the header.
    func entries(ofIFDAt offset: Int) -> StrideTo<Int>? {
      guard offset >= 8, let count = u16(offset), offset + 2 + count * 12 <= tiff.count
      else { return nil }
      return stride(from: offset + 2, to: offset + 2 + count * 12, by: 12)
    }

    /// The orientation in the entry at `entry`: a SHORT (or, from a few writers, a LONG) 1...8.
    func orientation(entry: Int) -> ImageOrientation? {
      guard let type = u16(entry + 2), let components = u32(entry + 4), components >= 1
      else { return nil }
      let value: Int?
      switch type {
      case 3: value = u16(entry + 8)  // SHORT, stored left-justified in the value field
      case 4: value = u32(entry + 8)  // LONG
      default: value = nil
      }
      guard let value, let raw = UInt8(exactly: value) else { return nil }
      return ImageOrientation(rawValue: raw)
    }

    /// The date in the ASCII entry at `entry` ("YYYY:MM:DD HH:MM:SS", 19 characters and a
    /// terminator, so always stored at an offset).
    func date(entry: Int, tag: EXIFDate.Tag) -> EXIFDate? {
      guard u16(entry + 2) == 2, let components = u32(entry + 4), components >= 19,
        let offset = u32(entry + 8), offset >= 8, offset + 19 <= tiff.count
      else { return nil }
      return EXIFDate(exifBytes: tiff[offset..<(offset + 19)], tag: tag)
    }
  }
}
