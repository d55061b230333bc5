#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  /// HEIF / HEIC / AVIF decode path through libheif 1.19 or later: the caller's
  /// ``DecodingLimits`` become libheif's own security limits, each coded stream's picture size
  /// is checked against its item's declared size, and the primary image is decoded upright
  /// (libheif applies `irot` / `imir` / `clap`) to 8-bit RGB, composited on the background and
  /// Lanczos-resampled; the shared steps are ``ShimDecoding``'s. No shrink-on-load: HEVC and AV1
  /// decode at full size. With an older libheif, which has no limits of its own, HEIF and AVIF
  /// are refused (``ImagingError/decoderUnavailable(format:reason:)``).
  ///
  /// Orientation policy: the container's transformation properties are authoritative (HEIF,
  /// ISO/IEC 23008-12); an EXIF orientation tag inside the file is not applied on top, as
  /// ImageIO, libvips and browsers do, so a photo is never rotated twice. Of the primary image's
  /// `Exif` block only the date is used (``DownscaledImage/exifDate``), for HEIC and AVIF alike.
  struct HEIFDecoding: ShimFormatDecoder {
    let decoder: OpaquePointer
    let header: dex_heif_header
    let format: ImageFormat

    /// What libheif holds to decode the primary image: its planes (1.5 bytes a pixel for 8-bit
    /// 4:2:0, 3 for deeper samples) and the interleaved RGB or RGBA copy, at full size (HEVC and
    /// AV1 have no scaled decode); and the planes of the images it decodes from (a grid's tiles,
    /// an overlay's inputs, an alpha image), of which libheif holds at most
    /// `DEX_HEIF_DECODING_THREADS` at once and an alpha image: counted as that many of the
    /// largest. (Their total work is bounded in the shim: twice the pixel limit.)
    static func decodeByteCount(_ header: dex_heif_header) -> Int {
      let shown = Double(header.width) * Double(header.height)
      let coded = Double(header.ispe_width) * Double(header.ispe_height)
      let held = Double(Swift.min(Int(header.input_count), Int(DEX_HEIF_DECODING_THREADS) + 1))
      let inputs = held * Double(header.largest_input_pixels)
      let planes = header.luma_bits > 8 ? 3.0 : 1.5
      let interleaved = header.has_alpha != 0 ? 4.0 : 3.0
      let bytes = Swift.max(shown, coded) * (planes + interleaved) + inputs * planes
      return bytes >= Double(Int.max) ? .max : Int(bytes.rounded(.up))
    }

    /// The shim's limits, all from `limits`: libheif's image size, item, tile and memory-block
    /// limits and the primary image's side.
    static func shimLimits(_ limits: DecodingLimits) -> dex_heif_limits {
      dex_heif_limits(
        max_pixels: UInt64(clamping: Swift.max(limits.maximumPixelCount, 1)),
        max_dimension: UInt32(clamping: limits.effectiveMaximumDimension),
        max_items: UInt32(clamping: Swift.max(limits.maximumItemCount, 1)),
        max_memory_bytes: UInt64(clamping: Swift.max(limits.maximumMemoryByteCount, 1)))
    }

    static func decode(
      _ bytes: UnsafeRawBufferPointer, format: ImageFormat, target: PixelTarget,
      options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      let base = try ShimDecoding.baseAddress(of: bytes)
      if let item = HEIFItemEncodings.encodedItem(in: bytes) {
        let encoding = String(
          item.encoding.prefix(32).filter {
            $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")
          })
        throw .unsupportedFormat(
          detected:
            "HEIF whose item \(item.id) is compressed (\(encoding)); compressed items are refused, "
            + "since libheif inflates them without a bound while it reads the file")
      }
      _ = spsReaderInstalled
      guard let decoder = dex_heif_decoder_create() else { throw .outOfMemory }
      defer { dex_heif_decoder_destroy(decoder) }

      let limits = options.limits
      var header = dex_heif_header()
      var shim = shimLimits(limits)
      let status = dex_heif_read_header(decoder, base, bytes.count, &shim, &header)
      switch ShimStatus(status) {
      case .ok: break
      case .unsupported where dex_heif_library_supported(nil) != 0:
        // A coding DexKit does not decode inside a file libheif reads (uncompressed, JPEG...).
        throw .unsupportedFormat(detected: libraryMessage(decoder))
      case .unsupported:
        throw .decoderUnavailable(format: format, reason: libraryMessage(decoder))
      case .tooLarge:
        // The same checks as every format (pixel count, then each side) name the limit where
        // the primary image's sizes were read; libheif's own refusals keep its message.
        let coded = DownscaleGeometry.Size(
          width: Int(header.ispe_width), height: Int(header.ispe_height))
        let shown = DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
        if coded.width > 0, coded.height > 0 { try checkLimits(coded, limits) }
        if shown.width > 0, shown.height > 0 { try checkLimits(shown, limits) }
        throw .corruptData(format: format, message: libraryMessage(decoder))
      case let status: try status.check(decoding: format, message: libraryMessage(decoder))
      }
      return try ShimDecoding.decode(
        HEIFDecoding(decoder: decoder, header: header, format: format), bytes: bytes,
        target: target, options: options)
    }

    /// The stream-size probe's first look at an HEVC stream, in Swift: the largest picture its
    /// sequence parameter sets declare (``HEVCSequenceParameterSet``), read before libde265
    /// builds tables of that size. Installed once per process.
    private static let spsReaderInstalled: Void = dex_heif_set_hevc_sps_reader {
      stream, size, width, height in
      guard let stream, let width, let height,
        let sps = HEVCSequenceParameterSet.largest(
          inStream: UnsafeRawBufferPointer(start: stream, count: size))
      else { return 0 }
      width.pointee = sps.width
      height.pointee = sps.height
      return 1
    }

    private static func libraryMessage(_ decoder: OpaquePointer) -> String {
      String(cString: dex_heif_decoder_message(decoder))
    }

    /// The shown size: libheif's transforms applied.
    var storedSize: DownscaleGeometry.Size {
      DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
    }

    /// The date of the primary image's `Exif` block, never its orientation: the container's
    /// transforms are authoritative and libheif has applied them (see the type's policy).
    func metadata(of bytes: UnsafeRawBufferPointer) -> EXIFReader.Metadata {
      let exif = EXIFReader.metadata(
        exifSize: header.exif_size, reading: { EXIFReader.metadata(inHEIFExif: $0) }
      ) { dex_heif_copy_exif(decoder, $0, $1) }
      return EXIFReader.Metadata(orientation: nil, date: exif.date)
    }

    func decodeByteCount(plan: DecodePlan, options: DecodingOptions) -> Int {
      Self.decodeByteCount(header)
    }

    func decode(
      plan: DecodePlan, into buffer: UnsafeMutablePointer<UInt8>, options: DecodingOptions
    ) throws(ImagingError) -> Bool {
      let background = options.background
      let status = dex_heif_decode(
        decoder, background.red, background.green, background.blue, buffer,
        Int32(plan.size.width), Int32(plan.size.height), plan.size.width * 3)
      try ShimStatus(status).check(decoding: format, message: Self.libraryMessage(decoder))
      return false
    }
  }
#endif
