#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  /// JPEG decode path: header, limits, EXIF orientation, DCT-scaled streaming decode + resample.
  enum JPEGDecoding {
    static func decode(
      _ bytes: UnsafeRawBufferPointer, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
        throw .emptyInput
      }
      guard let decoder = dex_jpeg_decoder_create() else { throw .outOfMemory }
      defer { dex_jpeg_decoder_destroy(decoder) }
      dex_jpeg_decoder_set_huge_pages(decoder, options.advisesHugePages ? 1 : 0)
      // libjpeg's own cap backs up the check below, with room for its small row buffers, so
      // that what a caller sees for an over-limit file is the typed error, not libjpeg's.
      dex_jpeg_decoder_set_memory_limit(
        decoder,
        UInt64(clamping: Swift.max(1, options.limits.maximumMemoryByteCount))
          .addingReportingOverflow(32 << 20).partialValue)
      func libraryMessage() -> String { String(cString: dex_jpeg_decoder_message(decoder)) }

      var header = dex_jpeg_header()
      let headerStatus = dex_jpeg_read_header(decoder, base, bytes.count, &header)
      guard ShimStatus(headerStatus) == .ok else {
        throw ImagingError.corruptData(format: .jpeg, message: libraryMessage())
      }
      let stored = DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
      try checkLimits(stored, options.limits)
      try checkMemory(Int(clamping: header.coefficient_bytes), options.limits)
      let exif = EXIFReader.metadata(inJPEG: bytes)
      let orientation = exif.orientation ?? .up

      var scaleFailure = false
      let plan = DownscaleGeometry.plan(
        stored: stored, orientation: orientation, target: target, gap: options.reducingGap,
        supportsDCTScaling: true
      ) { numerator in
        var width: Int32 = 0
        var height: Int32 = 0
        if ShimStatus(dex_jpeg_scaled_size(decoder, Int32(numerator), &width, &height)) != .ok {
          scaleFailure = true
        }
        return DownscaleGeometry.Size(width: Int(width), height: Int(height))
      }
      guard !scaleFailure, plan.size.width > 0, plan.size.height > 0 else {
        throw .corruptData(format: .jpeg, message: libraryMessage())
      }

      let smooth: Bool
      switch options.chromaUpsampling {
      case .smooth: smooth = true
      case .fast: smooth = false
      case .automatic:
        let scaled = DownscaleGeometry.jpegScaled(stored, numerator: plan.numerator)
        let gap = Swift.max(1.0, options.reducingGap.isFinite ? options.reducingGap : 1.0)
        smooth = Double(scaled.width) < Double(plan.size.width) * gap
      }
      var partial: Int32 = 0
      let pixels = try RGBImage.allocatePixels(plan.size) { buffer throws(ImagingError) in
        let status = dex_jpeg_decode(
          decoder, Int32(plan.numerator), smooth ? 1 : 0,
          options.allowsPartialImages ? 1 : 0, buffer, Int32(plan.size.width),
          Int32(plan.size.height), plan.size.width * 3, &partial)
        try ShimStatus(status).check(decoding: .jpeg, message: libraryMessage())
      }
      guard let image = RGBImage(width: plan.size.width, height: plan.size.height, pixels: pixels)
      else { throw .outOfMemory }
      return DecodedImage(
        image: image, format: .jpeg, storedSize: stored, orientation: orientation,
        isPartial: partial != 0, scaleNumerator: plan.numerator, isUpright: orientation == .up,
        exifDate: exif.date)
    }
  }
#endif
