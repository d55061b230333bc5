#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  /// WebP decode path: header with limits, EXIF orientation, libwebp's scaled decode (to the
  /// target times ``DecodingOptions/reducingGap``) and the Lanczos resample for the rest; the
  /// shared steps are ``ShimDecoding``'s. An animation's first frame is decoded at its canvas
  /// size and resampled.
  ///
  /// Orientation policy: an EXIF chunk's orientation is applied, as for JPEG and PNG (libvips
  /// and browsers do the same; WebP has no orientation field of its own).
  struct WebPDecoding: ShimFormatDecoder {
    let decoder: OpaquePointer
    let header: dex_webp_header

    static func decode(
      _ bytes: UnsafeRawBufferPointer, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      let base = try ShimDecoding.baseAddress(of: bytes)
      guard let decoder = dex_webp_decoder_create() else { throw .outOfMemory }
      defer { dex_webp_decoder_destroy(decoder) }

      let limits = options.limits
      var header = dex_webp_header()
      let headerStatus = dex_webp_read_header(
        decoder, base, bytes.count, UInt64(clamping: limits.maximumPixelCount), &header)
      switch ShimStatus(headerStatus) {
      case .tooLarge:
        throw .imageTooLarge(
          width: Int(header.width), height: Int(header.height),
          maximumPixelCount: limits.maximumPixelCount)
      case let status: try status.check(decoding: .webp, message: libraryMessage(decoder))
      }
      return try ShimDecoding.decode(
        WebPDecoding(decoder: decoder, header: header), bytes: bytes, target: target,
        options: options)
    }

    private static func libraryMessage(_ decoder: OpaquePointer) -> String {
      String(cString: dex_webp_decoder_message(decoder))
    }

    var format: ImageFormat { .webp }

    var storedSize: DownscaleGeometry.Size {
      DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
    }

    func metadata(of bytes: UnsafeRawBufferPointer) -> EXIFReader.Metadata {
      EXIFReader.metadata(exifSize: header.exif_size) { dex_webp_copy_exif(decoder, $0, $1) }
    }

    func decodeByteCount(plan: DecodePlan, options: DecodingOptions) -> Int {
      Self.decodeByteCount(header, scaled: scaledSize(plan: plan, options: options))
    }

    func decode(
      plan: DecodePlan, into buffer: UnsafeMutablePointer<UInt8>, options: DecodingOptions
    ) throws(ImagingError) -> Bool {
      let background = options.background
      let scaled = scaledSize(plan: plan, options: options)
      let status = dex_webp_decode(
        decoder, background.red, background.green, background.blue, Int32(scaled.width),
        Int32(scaled.height), buffer, Int32(plan.size.width), Int32(plan.size.height),
        plan.size.width * 3)
      try ShimStatus(status).check(decoding: .webp, message: Self.libraryMessage(decoder))
      return false
    }

    /// What libwebp decodes to before the Lanczos pass: an animation's canvas, or
    /// ``scaledSize(_:goal:options:)`` of a still.
    private func scaledSize(plan: DecodePlan, options: DecodingOptions) -> DownscaleGeometry.Size {
      header.has_animation != 0
        ? storedSize : Self.scaledSize(storedSize, goal: plan.size, options: options)
    }

    /// The size libwebp's own scaler decodes to: the goal times the reducing gap (at least the
    /// goal, at most the stored size), so that the Lanczos pass only finishes the last step; the
    /// goal itself when the gap is 1.
    static func scaledSize(
      _ stored: DownscaleGeometry.Size, goal: DownscaleGeometry.Size, options: DecodingOptions
    ) -> DownscaleGeometry.Size {
      let gap = options.reducingGap.isFinite ? Swift.max(1.0, options.reducingGap) : 1.0
      func side(_ goal: Int, _ stored: Int) -> Int {
        Swift.min(stored, Swift.max(goal, Int((Double(goal) * gap).rounded(.up))))
      }
      return DownscaleGeometry.Size(
        width: side(goal.width, stored.width), height: side(goal.height, stored.height))
    }

    /// What libwebp holds to decode: an animation's two RGBA canvases; a lossless (or mixed)
    /// image's whole ARGB picture, whatever the output size; a lossy image's output at the
    /// scaled size (it decodes row by row into libwebp's scaler), and with alpha the full-size
    /// alpha plane and, for losslessly compressed alpha, its full-size ARGB picture (5 bytes a
    /// stored pixel: a 264 KB 10 000 × 10 000 file took 527 MB counted as its output's 4).
    static func decodeByteCount(_ header: dex_webp_header, scaled: DownscaleGeometry.Size) -> Int {
      let stored = Double(header.width) * Double(header.height)
      let bytes: Double
      if header.has_animation != 0 {
        bytes = 2 * 4 * stored
      } else if header.format == 1 {
        bytes =
          4 * Double(scaled.width) * Double(scaled.height)
          + (header.has_alpha != 0 ? 5 * stored : 0)
      } else {
        bytes = 4 * stored
      }
      return bytes >= Double(Int.max) ? .max : Int(bytes)
    }
  }
#endif
