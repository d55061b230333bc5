#if os(Linux) && SystemImageCodecs
  /// Finds an item of a HEIF file whose data is compressed: an `infe` box with a content
  /// encoding (`deflate`, `compress_zlib`, `br`...).
  ///
  /// libheif 1.19 inflates such an item (an XMP packet tied to an image) while it parses the
  /// file, before a caller can ask or limit anything, and nothing bounds what it inflates to:
  /// 612 KB of zeros deflated took it from 40 MB to 1.1 GB. No limit of libheif's covers it, so
  /// this one question is asked of the bytes first, in Swift, every read bounds-checked: the
  /// `infe` boxes of every `iinf` of every top-level `meta` box (libheif reads the first of
  /// each), so that it finds at least every item libheif would inflate. A file it cannot read
  /// is left to libheif, which reads the same boxes and refuses what is malformed.
  enum HEIFItemEncodings {
    /// The most boxes looked at in one list of boxes.
    static let maximumBoxes = 4_096

    /// The first item with a content encoding: its id and the encoding.
    static func encodedItem(in bytes: UnsafeRawBufferPointer) -> (id: UInt32, encoding: String)? {
      let reader = Reader(bytes: bytes)
      for meta in reader.boxes(in: 0..<bytes.count) where meta.type == "meta" {
        let children = reader.fullBoxBody(meta.body)
        for iinf in reader.boxes(in: children) where iinf.type == "iinf" {
          guard let version = reader.byte(at: iinf.body.lowerBound) else { continue }
          let entries = reader.fullBoxBody(iinf.body).dropFirst(version == 0 ? 2 : 4)
          for infe in reader.boxes(in: entries) where infe.type == "infe" {
            if let found = reader.encoding(ofItem: infe.body) { return found }
          }
        }
      }
      return nil
    }

    /// Bounds-checked reads of the file's bytes.
    private struct Reader {
      let bytes: UnsafeRawBufferPointer

      func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
      }

      func integer(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, width > 0, offset <= bytes.count - width else { return nil }
        return (0..<width).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
      }

      /// The boxes laid end to end in `range` (at most ``maximumBoxes``), up to the first one
      /// that does not fit.
      func boxes(in range: Range<Int>) -> [(type: String, body: Range<Int>)] {
        var found: [(type: String, body: Range<Int>)] = []
        var start = range.lowerBound
        while found.count < HEIFItemEncodings.maximumBoxes, range.upperBound - start >= 8,
          let size32 = integer(at: start, width: 4), let type = integer(at: start + 4, width: 4)
        {
          var header = 8
          var size = Int(size32)
          if size32 == 1 {
            guard let large = integer(at: start + 8, width: 8), large <= UInt64(Int.max) else {
              break
            }
            header = 16
            size = Int(large)
          } else if size32 == 0 {
            size = range.upperBound - start
          }
          guard size >= header, size <= range.upperBound - start else { break }
          found.append((Self.fourCC(type), start + header..<start + size))
          start += size
        }
        return found
      }

      /// A full box's body after its version and flags.
      func fullBoxBody(_ body: Range<Int>) -> Range<Int> {
        body.count >= 4 ? body.dropFirst(4) : body.upperBound..<body.upperBound
      }

      /// The id and content encoding of an `infe` box's item, when it has a non-empty one.
      func encoding(ofItem body: Range<Int>) -> (id: UInt32, encoding: String)? {
        guard let version = byte(at: body.lowerBound) else { return nil }
        var at = body.lowerBound + 4
        let idWidth = version >= 3 ? 4 : 2
        guard let id = integer(at: at, width: idWidth) else { return nil }
        at += idWidth + 2  // the item id, then its protection index
        if version >= 2 {
          guard let type = integer(at: at, width: 4) else { return nil }
          at += 4
          _ = string(from: &at, before: body.upperBound)  // item_name
          guard Self.fourCC(type) == "mime" else { return nil }
        } else {
          _ = string(from: &at, before: body.upperBound)  // item_name
        }
        _ = string(from: &at, before: body.upperBound)  // content_type
        let encoding = string(from: &at, before: body.upperBound)
        guard !encoding.isEmpty else { return nil }
        return (UInt32(truncatingIfNeeded: id), encoding)
      }

      /// The NUL-terminated string at `at` (up to `end` when it has no NUL), moving past it.
      func string(from at: inout Int, before end: Int) -> String {
        guard at < end else { return "" }
        let stop = (at..<end).first { bytes[$0] == 0 } ?? end
        let text = String(
          decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<stop]), as: UTF8.self)
        at = stop + 1
        return text
      }

      static func fourCC(_ value: UInt64) -> String {
        String(
          decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt64($0)) },
          as: UTF8.self)
      }
    }
  }
#endif
