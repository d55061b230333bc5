#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  /// JPEG decode path: the header (libjpeg capped at the memory limit), EXIF orientation, the
  /// DCT-scaled streaming decode and resample; the shared steps are ``ShimDecoding``'s.
  struct JPEGDecoding: ShimFormatDecoder {
    let decoder: OpaquePointer
    let header: dex_jpeg_header

    static func decode(
      _ bytes: UnsafeRawBufferPointer, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      let base = try ShimDecoding.baseAddress(of: bytes)
      guard let decoder = dex_jpeg_decoder_create() else { throw .outOfMemory }
      defer { dex_jpeg_decoder_destroy(decoder) }
      dex_jpeg_decoder_set_huge_pages(decoder, options.advisesHugePages ? 1 : 0)
      // libjpeg's own cap backs up the shared memory check, with room for its small row
      // buffers, so that what a caller sees for an over-limit file is the typed error, not
      // libjpeg's.
      dex_jpeg_decoder_set_memory_limit(
        decoder,
        UInt64(clamping: Swift.max(1, options.limits.maximumMemoryByteCount))
          .addingReportingOverflow(32 << 20).partialValue)
      var header = dex_jpeg_header()
      guard ShimStatus(dex_jpeg_read_header(decoder, base, bytes.count, &header)) == .ok else {
        throw .corruptData(format: .jpeg, message: libraryMessage(decoder))
      }
      return try ShimDecoding.decode(
        JPEGDecoding(decoder: decoder, header: header), bytes: bytes, target: target,
        options: options)
    }

    private static func libraryMessage(_ decoder: OpaquePointer) -> String {
      String(cString: dex_jpeg_decoder_message(decoder))
    }

    var format: ImageFormat { .jpeg }

    var storedSize: DownscaleGeometry.Size {
      DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
    }

    func metadata(of bytes: UnsafeRawBufferPointer) -> EXIFReader.Metadata {
      EXIFReader.metadata(inJPEG: bytes)
    }

    func plan(
      orientation: ImageOrientation, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> DecodePlan {
      var scaleFailure = false
      let plan = DownscaleGeometry.plan(
        stored: storedSize, orientation: orientation, target: target, gap: options.reducingGap,
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
        throw .corruptData(format: .jpeg, message: Self.libraryMessage(decoder))
      }
      return plan
    }

    /// A progressive or multi-scan file's whole-image coefficient buffer.
    func decodeByteCount(plan: DecodePlan, options: DecodingOptions) -> Int {
      Int(clamping: header.coefficient_bytes)
    }

    func decode(
      plan: DecodePlan, into buffer: UnsafeMutablePointer<UInt8>, options: DecodingOptions
    ) throws(ImagingError) -> Bool {
      let smooth: Bool
      switch options.chromaUpsampling {
      case .smooth: smooth = true
      case .fast: smooth = false
      case .automatic:
        let scaled = DownscaleGeometry.jpegScaled(storedSize, numerator: plan.numerator)
        let gap = Swift.max(1.0, options.reducingGap.isFinite ? options.reducingGap : 1.0)
        smooth = Double(scaled.width) < Double(plan.size.width) * gap
      }
      var partial: Int32 = 0
      let status = dex_jpeg_decode(
        decoder, Int32(plan.numerator), smooth ? 1 : 0, options.allowsPartialImages ? 1 : 0,
        buffer, Int32(plan.size.width), Int32(plan.size.height), plan.size.width * 3, &partial)
      try ShimStatus(status).check(decoding: .jpeg, message: Self.libraryMessage(decoder))
      return partial != 0
    }
  }
#endif
