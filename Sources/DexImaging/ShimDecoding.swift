#if os(Linux) && SystemImageCodecs
  /// The stored-orientation size to decode to, and the libjpeg scale numerator over 8 (8 for a
  /// format without shrink-on-load).
  typealias DecodePlan = (numerator: Int, size: DownscaleGeometry.Size)

  /// One format's decoder in the C shim with its header read: what differs between JPEG, PNG,
  /// WebP and HEIF (the header's sizes, where EXIF is, how the size to decode to is chosen, what
  /// the library holds, the decode call). The rest is ``ShimDecoding``'s.
  protocol ShimFormatDecoder {
    /// The format the header was read as.
    var format: ImageFormat { get }
    /// The size the header declares, before orientation.
    var storedSize: DownscaleGeometry.Size { get }
    /// The EXIF orientation and date of the file (none where the container's own transforms are
    /// authoritative).
    func metadata(of bytes: UnsafeRawBufferPointer) -> EXIFReader.Metadata
    /// What to decode to for `target` (by default the target's size, decoded at full size: a
    /// format without shrink-on-load).
    func plan(
      orientation: ImageOrientation, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> DecodePlan
    /// The bytes the library holds at once to decode to `plan`, besides the output.
    func decodeByteCount(plan: DecodePlan, options: DecodingOptions) -> Int
    /// Decodes to `plan` into `buffer` (RGB8, `plan.size`, tightly packed); whether rows are
    /// missing (a partial image).
    func decode(
      plan: DecodePlan, into buffer: UnsafeMutablePointer<UInt8>, options: DecodingOptions
    ) throws(ImagingError) -> Bool
  }

  extension ShimFormatDecoder {
    func plan(
      orientation: ImageOrientation, target: PixelTarget, options: DecodingOptions
    ) -> DecodePlan {
      let stored = storedSize
      return DownscaleGeometry.plan(
        stored: stored, orientation: orientation, target: target, gap: 1,
        supportsDCTScaling: false, scaledSize: { _ in stored })
    }
  }

  /// The one decode path of every format in the C shim, from a read header to pixels: the
  /// limits on the header's sizes, EXIF orientation and date, the plan, the limit on what the
  /// library holds, the output's allocation. A limit or a step added here holds for every
  /// format.
  enum ShimDecoding {
    /// The first byte of `bytes` for a shim's header reader; no bytes are refused.
    static func baseAddress(
      of bytes: UnsafeRawBufferPointer
    ) throws(ImagingError)
      -> UnsafePointer<UInt8>
    {
      guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
        throw .emptyInput
      }
      return base
    }

    /// Checks `decoder`'s header against the limits, plans and decodes.
    static func decode(
      _ decoder: some ShimFormatDecoder, bytes: UnsafeRawBufferPointer, target: PixelTarget,
      options: DecodingOptions
    ) throws(ImagingError) -> DecodedImage {
      let stored = decoder.storedSize
      try checkLimits(stored, options.limits)
      let exif = decoder.metadata(of: bytes)
      let orientation = exif.orientation ?? .up
      let plan = try decoder.plan(orientation: orientation, target: target, options: options)
      try checkMemory(decoder.decodeByteCount(plan: plan, options: options), options.limits)
      var partial = false
      let pixels = try RGBImage.allocatePixels(plan.size) { buffer throws(ImagingError) in
        partial = try decoder.decode(plan: plan, into: buffer, options: options)
      }
      guard let image = RGBImage(width: plan.size.width, height: plan.size.height, pixels: pixels)
      else { throw .outOfMemory }
      return DecodedImage(
        image: image, format: decoder.format, storedSize: stored, orientation: orientation,
        isPartial: partial, scaleNumerator: plan.numerator, isUpright: orientation == .up,
        exifDate: exif.date)
    }
  }
#endif
