/// Finds the EXIF orientation tag (0x0112) in a JPEG's APP1 segment or a raw TIFF/EXIF block.
///
/// Every read is bounds-checked; anything malformed (bad byte order mark, offsets past the end,
/// wrong type, value outside 1...8) yields `nil`, so broken EXIF is ignored, never fatal.
enum EXIFOrientationReader {
  /// The orientation declared in the first EXIF APP1 segment before the first scan, if any.
  static func orientation(inJPEG bytes: UnsafeRawBufferPointer) -> ImageOrientation? {
    guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    var position = 2
    var segments = 0
    while position + 4 <= bytes.count, segments < 256 {
      guard bytes[position] == 0xFF else { return nil }
      let marker = bytes[position + 1]
      if marker == 0xFF {  // fill byte
        position += 1
        continue
      }
      if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
        position += 2
        continue
      }
      if marker == 0xDA || marker == 0xD9 { return nil }  // image data starts: no EXIF before it
      let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
      guard length >= 2, position + 2 + length <= bytes.count else { return nil }
      let body = position + 4
      let bodyLength = length - 2
      if marker == 0xE1, bodyLength >= 14,
        bytes[body] == 0x45, bytes[body + 1] == 0x78, bytes[body + 2] == 0x69,
        bytes[body + 3] == 0x66, bytes[body + 4] == 0, bytes[body + 5] == 0
      {
        let tiff = UnsafeRawBufferPointer(rebasing: bytes[(body + 6)..<(body + bodyLength)])
        return orientation(inTIFF: tiff)
      }
      position += 2 + length
      segments += 1
    }
    return nil
  }

  /// The orientation in an EXIF (raw TIFF) block of `size` bytes that `copy` writes into a
  /// buffer of that size (a decoder's copy-out call, returning 0 on success); `.up` when there
  /// is no block or it does not parse.
  static func orientation(
    exifSize size: Int32, copy: (UnsafeMutablePointer<UInt8>, Int) -> Int32
  ) -> ImageOrientation {
    guard size > 0 else { return .up }
    var exif = [UInt8](repeating: 0, count: Int(size))
    let status = exif.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { copy($0, buffer.count) } ?? -1
    }
    guard status == 0 else { return .up }
    return exif.withUnsafeBytes { orientation(inTIFF: $0) } ?? .up
  }

  /// The orientation in IFD0 of a TIFF structure ("II*\0" or "MM\0*" header).
  static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
    guard tiff.count >= 8 else { return nil }
    let littleEndian: Bool
    switch (tiff[0], tiff[1]) {
    case (0x49, 0x49): littleEndian = true
    case (0x4D, 0x4D): littleEndian = false
    default: return nil
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
    guard u16(2) == 42, let ifd = u32(4), ifd >= 8, let count = u16(ifd),
      ifd + 2 + count * 12 <= tiff.count
    else { return nil }  // the whole IFD must be inside the block
    for index in 0..<count {
      let entry = ifd + 2 + index * 12
      guard let tag = u16(entry), let type = u16(entry + 2), let components = u32(entry + 4)
      else { return nil }
      guard tag == 0x0112 else { continue }
      guard components >= 1 else { return nil }
      let value: Int?
      switch type {
      case 3: value = u16(entry + 8)  // SHORT, stored left-justified in the value field
      case 4: value = u32(entry + 8)  // LONG, seen from a few writers
      default: value = nil
      }
      guard let value, let raw = UInt8(exactly: value) else { return nil }
      return ImageOrientation(rawValue: raw)
    }
    return nil
  }
}
