#if os(Linux) && SystemImageCodecs
  import CDexImageShim
  import Foundation
  import Logging

  /// The default ``ImageDownscaling`` and ``ImageDecoding`` conformance: libjpeg-turbo, libpng,
  /// libheif (HEIF / HEIC / AVIF) and libwebp through a small C shim.
  ///
  /// JPEGs are decoded with libjpeg-turbo's DCT scaling (1/8, 1/4, 1/2) to the smallest size that
  /// still covers the target times ``DecodingOptions/reducingGap``, streamed row by row through a
  /// Lanczos-3 resampler, rotated/mirrored per EXIF, and re-encoded once. Memory is proportional
  /// to the scaled decode plus the output (progressive JPEGs additionally need libjpeg's
  /// full-size coefficient buffer, about 2 bytes per pixel and component).
  ///
  /// A value type with no shared state: safe to use from any number of tasks at once.
  public struct ImageDownscaler: ImageDownscaling, ImageDecoding {
    /// Receives debug-level notes about each decode (sizes, scale, orientation; never pixels).
    public var logger: Logger

    /// Creates a downscaler that logs to `logger`.
    public init(logger: Logger = Logger(label: "dexkit.imaging.downscaler")) {
      self.logger = logger
    }

    /// Decodes, orients, downscales and JPEG-encodes `imageData`; see ``ImageDownscaling``.
    public func downscale(
      _ imageData: Data, options: DownscaleOptions
    ) throws(ImagingError)
      -> DownscaledImage
    {
      guard options.maximumDimension > 0 else {
        throw .invalidArgument("maximumDimension must be positive, got \(options.maximumDimension)")
      }
      let decoded = try decode(
        imageData, target: .fitting(maximumDimension: options.maximumDimension),
        options: options.decoding)
      let jpeg = try JPEGEncoder.encode(
        decoded.image, quality: options.libjpegQuality, subsampling: options.chromaSubsampling,
        progressive: options.isProgressive)
      // The thumbnail comes from the same pixels: no second decode of the photo.
      let thumbnail = try options.maximumThumbnailDimension.map { (side) throws(ImagingError) in
        try JPEGEncoder.encode(
          decoded.image.resampled(fitting: side), quality: options.libjpegQuality,
          subsampling: options.chromaSubsampling, progressive: false)
      }
      logger.debug(
        "Downscaled image",
        metadata: [
          "format": "\(decoded.format.name)",
          "source": "\(decoded.storedSize.width)x\(decoded.storedSize.height)",
          "output": "\(decoded.image.width)x\(decoded.image.height)",
          "orientation": "\(decoded.orientation.rawValue)",
          "jpegBytes": "\(jpeg.count)",
        ])
      return DownscaledImage(
        jpegData: jpeg, pixelWidth: decoded.image.width, pixelHeight: decoded.image.height,
        sourceFormat: decoded.format, sourcePixelWidth: decoded.storedSize.width,
        sourcePixelHeight: decoded.storedSize.height, appliedOrientation: decoded.orientation,
        isPartial: decoded.isPartial, pixels: decoded.image, thumbnailJPEG: thumbnail,
        exifDate: decoded.exifDate)
    }

    /// Decodes `imageData` to upright RGB8 at `target`; see ``ImageDecoding``.
    public func decodePixels(
      from imageData: Data, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> RGBImage {
      try decode(imageData, target: target, options: options).image
    }

    /// The full pipeline up to (not including) encoding.
    func decode(
      _ data: Data, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError)
      -> DecodedImage
    {
      try checkRequest(data, target: target, limits: options.limits)
      let format = try ImageFormat.sniff(data)
      let result = data.withUnsafeBytes { raw -> Result<DecodedImage, ImagingError> in
        do throws(ImagingError) {
          switch format {
          case .jpeg:
            return .success(try JPEGDecoding.decode(raw, target: target, options: options))
          case .png: return .success(try PNGDecoding.decode(raw, target: target, options: options))
          case .heif, .avif:
            return .success(
              try HEIFDecoding.decode(raw, format: format, target: target, options: options))
          case .webp:
            return .success(try WebPDecoding.decode(raw, target: target, options: options))
          }
        } catch {
          return .failure(error)
        }
      }
      let decoded = try result.get()
      let upright = try decoded.orientedUpright()
      logger.trace(
        "Decoded image",
        metadata: [
          "format": "\(format.name)", "scaleNumerator": "\(decoded.scaleNumerator)",
          "partial": "\(decoded.isPartial)",
        ])
      return upright
    }
  }
#endif
