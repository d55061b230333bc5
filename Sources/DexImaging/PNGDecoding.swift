#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  /// PNG decode path: the header with the limits checked on its bytes before libpng parses
  /// anything, eXIf orientation, the streaming decode and resample; the shared steps are
  /// ``ShimDecoding``'s.
  struct PNGDecoding: ShimFormatDecoder {
    let decoder: OpaquePointer
    let header: dex_png_header

    static func decode(
      _ bytes: UnsafeRawBufferPointer, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      let base = try ShimDecoding.baseAddress(of: bytes)
      guard let decoder = dex_png_decoder_create() else { throw .outOfMemory }
      defer { dex_png_decoder_destroy(decoder) }

      var header = dex_png_header()
      let limits = options.limits
      let maxSide = UInt32(clamping: limits.effectiveMaximumDimension)
      let headerStatus = dex_png_read_header(
        decoder, base, bytes.count, maxSide, UInt64(clamping: limits.maximumPixelCount), &header)
      let stored = DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
      switch ShimStatus(headerStatus) {
      case .ok: break
      case .tooLarge:
        try checkLimits(stored, limits)  // says which limit
        throw .imageTooLarge(
          width: stored.width, height: stored.height, maximumPixelCount: limits.maximumPixelCount)
      case .truncated: throw .truncatedData(format: .png)
      default:
        let message = libraryMessage(decoder)
        // libpng refuses over-limit dimensions itself ("Image width exceeds user limit").
        if message.contains("exceeds user limit") {
          throw .imageTooLarge(
            width: stored.width, height: stored.height, maximumPixelCount: limits.maximumPixelCount)
        }
        throw .corruptData(format: .png, message: message)
      }
      return try ShimDecoding.decode(
        PNGDecoding(decoder: decoder, header: header), bytes: bytes, target: target,
        options: options)
    }

    private static func libraryMessage(_ decoder: OpaquePointer) -> String {
      String(cString: dex_png_decoder_message(decoder))
    }

    var format: ImageFormat { .png }

    var storedSize: DownscaleGeometry.Size {
      DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
    }

    func metadata(of bytes: UnsafeRawBufferPointer) -> EXIFReader.Metadata {
      EXIFReader.metadata(exifSize: header.exif_size) { dex_png_copy_exif(decoder, $0, $1) }
    }

    /// Adam7 is decoded into one whole-image buffer of up to 4 bytes a pixel; other files
    /// stream row by row.
    func decodeByteCount(plan: DecodePlan, options: DecodingOptions) -> Int {
      header.interlaced != 0 ? storedSize.width * storedSize.height * 4 : 0
    }

    func decode(
      plan: DecodePlan, into buffer: UnsafeMutablePointer<UInt8>, options: DecodingOptions
    ) throws(ImagingError) -> Bool {
      let background = options.background
      var partial: Int32 = 0
      let status = dex_png_decode(
        decoder, background.red, background.green, background.blue,
        options.allowsPartialImages ? 1 : 0, buffer, Int32(plan.size.width),
        Int32(plan.size.height), plan.size.width * 3, &partial)
      try ShimStatus(status).check(decoding: .png, message: Self.libraryMessage(decoder))
      return partial != 0
    }
  }
#endif
