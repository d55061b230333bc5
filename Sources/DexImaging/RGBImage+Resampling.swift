#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  extension RGBImage {
    /// These pixels Lanczos-3 resampled so that the longest side is at most `maximumDimension`
    /// (aspect kept, never upscaled; the image itself when it already fits).
    ///
    /// - Throws: ``ImagingError/invalidArgument(_:)`` for a non-positive size,
    ///   ``ImagingError/outOfMemory`` when the output cannot be allocated.
    func resampled(fitting maximumDimension: Int) throws(ImagingError) -> RGBImage {
      guard maximumDimension > 0 else {
        throw .invalidArgument("maximumDimension must be positive, got \(maximumDimension)")
      }
      return try resampled(
        to: DownscaleGeometry.fitting(
          DownscaleGeometry.Size(width: width, height: height), maximumDimension: maximumDimension))
    }

    /// These pixels Lanczos-3 resampled so that the short side is `shortSide` (aspect kept,
    /// never upscaled; the image itself when its short side is already at most `shortSide`).
    ///
    /// - Throws: ``ImagingError/invalidArgument(_:)`` for a non-positive size,
    ///   ``ImagingError/outOfMemory`` when the output cannot be allocated.
    func resampled(shortSide: Int) throws(ImagingError) -> RGBImage {
      guard shortSide > 0 else {
        throw .invalidArgument("shortSide must be positive, got \(shortSide)")
      }
      return try resampled(
        to: DownscaleGeometry.filling(
          DownscaleGeometry.Size(width: width, height: height), shortSide: shortSide))
    }

    private func resampled(to size: DownscaleGeometry.Size) throws(ImagingError) -> RGBImage {
      guard size.width != width || size.height != height else { return self }
      var output = [UInt8](repeating: 0, count: size.width * size.height * 3)
      let status = pixels.withUnsafeBufferPointer { source in
        output.withUnsafeMutableBufferPointer { target in
          dex_resample_rgb(
            source.baseAddress, Int32(width), Int32(height), width * 3, target.baseAddress,
            Int32(size.width), Int32(size.height), size.width * 3)
        }
      }
      if ShimStatus(status) == .outOfMemory { throw .outOfMemory }
      guard ShimStatus(status) == .ok,
        let image = RGBImage(width: size.width, height: size.height, pixels: output)
      else { throw .invalidArgument("cannot resample to \(size.width)x\(size.height)") }
      return image
    }
  }
#endif
