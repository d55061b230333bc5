#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  /// HEIF / HEIC / AVIF decode path through libheif: box walk and header with limits, primary
  /// image decoded upright (libheif applies `irot` / `imir` / `clap`) to 8-bit RGB, composited on
  /// the background and Lanczos-resampled. No shrink-on-load: HEVC and AV1 decode at full size.
  ///
  /// Orientation policy: the container's transformation properties are authoritative (HEIF,
  /// ISO/IEC 23008-12); an EXIF orientation tag inside the file is not applied on top, as
  /// ImageIO, libvips and browsers do, so a photo is never rotated twice.
  enum HEIFDecoding {
    /// Most items, and most derived-image references (a grid's or overlay's tiles), a file may
    /// have: a 12 MP iPhone photo has about 50 items and 48 tiles, a 100 MP image in 512-pixel
    /// tiles about 400. Beyond this the file is refused before any tile is decoded.
    static let maxItemCount = 1024
    /// libheif's own ceiling on a side (its compiled-in security limit).
    static let maxSide = 32768

    /// What libheif holds to decode the primary image: its planes (1.5 bytes a pixel for 8-bit
    /// 4:2:0, 3 for deeper samples) and the interleaved RGB or RGBA copy, at full size (HEVC and
    /// AV1 have no scaled decode); for an overlay, every input's planes as well.
    static func decodeByteCount(_ header: dex_heif_header) -> Int {
      let shown = Double(header.width) * Double(header.height)
      let coded = Double(header.ispe_width) * Double(header.ispe_height)
      let inputs = header.has_overlay != 0 ? Double(header.overlay_input_pixels) : 0
      let planes = header.luma_bits > 8 ? 3.0 : 1.5
      let interleaved = header.has_alpha != 0 ? 4.0 : 3.0
      let bytes = Swift.max(shown, coded) * (planes + interleaved) + inputs * planes
      return bytes >= Double(Int.max) ? .max : Int(bytes.rounded(.up))
    }

    static func decode(
      _ bytes: UnsafeRawBufferPointer, format: ImageFormat, target: PixelTarget,
      options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
        throw .emptyInput
      }
      guard let decoder = dex_heif_decoder_create() else { throw .outOfMemory }
      defer { dex_heif_decoder_destroy(decoder) }
      func libraryMessage() -> String { String(cString: dex_heif_decoder_message(decoder)) }

      let limits = options.limits
      var header = dex_heif_header()
      let status = dex_heif_read_header(
        decoder, base, bytes.count,
        UInt32(clamping: Swift.min(limits.effectiveMaxDimension, maxSide)),
        UInt64(clamping: limits.maxPixelCount), Int32(maxItemCount), &header)
      switch Int(status) {
      case Int(DEX_STATUS_OK): break
      case Int(DEX_STATUS_TOO_LARGE):
        if Int(header.item_count) > maxItemCount || Int(header.derived_references) > maxItemCount {
          throw .corruptData(format: format, message: libraryMessage())
        }
        // The same checks as every format (pixel count, then each side) name the limit; what
        // passes them is over libheif's own ceiling on a side.
        let coded = DownscaleGeometry.Size(
          width: Int(header.ispe_width), height: Int(header.ispe_height))
        let shown = DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
        // The shown size is 0 x 0 when the refusal came before libheif read the file.
        if coded.width > 0, coded.height > 0 { try checkLimits(coded, limits) }
        if shown.width > 0, shown.height > 0 { try checkLimits(shown, limits) }
        let longer = coded.longSide >= shown.longSide ? coded : shown
        guard longer.longSide > maxSide else {
          throw .corruptData(format: format, message: libraryMessage())
        }
        throw .dimensionTooLarge(width: longer.width, height: longer.height, maxDimension: maxSide)
      case Int(DEX_STATUS_TRUNCATED): throw .truncatedData(format: format)
      case Int(DEX_STATUS_OUT_OF_MEMORY): throw .outOfMemory
      default: throw .corruptData(format: format, message: libraryMessage())
      }
      let shown = DownscaleGeometry.Size(width: Int(header.width), height: Int(header.height))
      try checkLimits(shown, limits)
      try checkMemory(decodeByteCount(header), limits)

      let plan = DownscaleGeometry.plan(
        stored: shown, orientation: .up, target: target, gap: 1, supportsDCTScaling: false,
        scaledSize: { _ in shown })
      let background = options.background
      let pixels = try RGBImage.allocatePixels(plan.size) { buffer throws(ImagingError) in
        let status = dex_heif_decode(
          decoder, background.red, background.green, background.blue, buffer,
          Int32(plan.size.width), Int32(plan.size.height), plan.size.width * 3)
        switch Int(status) {
        case Int(DEX_STATUS_OK): return
        case Int(DEX_STATUS_TRUNCATED): throw .truncatedData(format: format)
        case Int(DEX_STATUS_OUT_OF_MEMORY): throw .outOfMemory
        default: throw .corruptData(format: format, message: libraryMessage())
        }
      }
      guard let image = RGBImage(width: plan.size.width, height: plan.size.height, pixels: pixels)
      else { throw .outOfMemory }
      return DecodedImage(
        image: image, format: format, storedSize: shown, orientation: .up, isPartial: false,
        scaleNumerator: 8, isUpright: true)
    }
  }
#endif
