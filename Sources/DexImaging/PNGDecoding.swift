#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  /// PNG decode path: header with limits, optional eXIf orientation, streaming decode + resample.
  enum PNGDecoding {
    static func decode(
      _ bytes: UnsafeRawBufferPointer, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
        throw .emptyInput
      }
      guard let decoder = dex_png_decoder_create() else { throw .outOfMemory }
      defer { dex_png_decoder_destroy(decoder) }
      func libraryMessage() -> String { String(cString: dex_png_decoder_message(decoder)) }

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
          width: stored.width, height: stored.height, maxPixelCount: limits.maximumPixelCount)
      case .truncated: throw .truncatedData(format: .png)
      default:
        let message = libraryMessage()
        // libpng refuses over-limit dimensions itself ("Image width exceeds user limit").
        if message.contains("exceeds user limit") {
          throw .imageTooLarge(
            width: stored.width, height: stored.height, maxPixelCount: limits.maximumPixelCount)
        }
        throw .corruptData(format: .png, message: message)
      }
      try checkLimits(stored, limits)
      if header.interlaced != 0 {
        // Adam7 is decoded into one whole-image buffer of up to 4 bytes a pixel.
        try checkMemory(stored.width * stored.height * 4, limits)
      }

      let exif = EXIFReader.metadata(exifSize: header.exif_size) {
        dex_png_copy_exif(decoder, $0, $1)
      }
      let orientation = exif.orientation ?? .up

      let plan = DownscaleGeometry.plan(
        stored: stored, orientation: orientation, target: target, gap: 1,
        supportsDCTScaling: false, scaledSize: { _ in stored })
      let background = options.background
      var partial: Int32 = 0
      let pixels = try RGBImage.allocatePixels(plan.size) { buffer throws(ImagingError) in
        let status = dex_png_decode(
          decoder, background.red, background.green, background.blue,
          options.allowsPartialImages ? 1 : 0, buffer, Int32(plan.size.width),
          Int32(plan.size.height), plan.size.width * 3, &partial)
        try ShimStatus(status).check(decoding: .png, message: libraryMessage())
      }
      guard let image = RGBImage(width: plan.size.width, height: plan.size.height, pixels: pixels)
      else { throw .outOfMemory }
      return DecodedImage(
        image: image, format: .png, storedSize: stored, orientation: orientation,
        isPartial: partial != 0, scaleNumerator: 8, isUpright: orientation == .up,
        exifDate: exif.date)
    }
  }
#endif
