#if os(Linux) && SystemImageCodecs
  import Foundation

  // The checks every decoder (JPEG, PNG, HEIF, AVIF, WebP) runs on a header's sizes before it
  // allocates, so that each format names the same limit with the same error.

  /// Refuses sizes beyond `limits` (and degenerate ones) before anything big is allocated: the
  /// pixel count first, then each side.
  func checkLimits(_ size: DownscaleGeometry.Size, _ limits: DecodingLimits) throws(ImagingError) {
    let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
    guard size.width > 0, size.height > 0, !overflow, pixels <= limits.maxPixelCount else {
      throw .imageTooLarge(
        width: size.width, height: size.height, maxPixelCount: limits.maxPixelCount)
    }
    let maxDimension = limits.effectiveMaxDimension
    guard size.width <= maxDimension, size.height <= maxDimension else {
      throw .dimensionTooLarge(width: size.width, height: size.height, maxDimension: maxDimension)
    }
  }

  /// Refuses a call before any decoding: a target of no size, no bytes, or more bytes than
  /// `limits` allow (the in-process decoder's first checks, and the isolated one's before it
  /// sends anything to a worker).
  func checkRequest(
    _ data: Data, target: PixelTarget, limits: DecodingLimits
  ) throws(ImagingError) {
    switch target {
    case .fitting(let maxDimension) where maxDimension <= 0:
      throw .invalidArgument("maxDimension must be positive, got \(maxDimension)")
    case .minimumShortSide(let side) where side <= 0:
      throw .invalidArgument("minimumShortSide must be positive, got \(side)")
    default: break
    }
    guard !data.isEmpty else { throw .emptyInput }
    guard data.count <= limits.maxByteCount else {
      throw .inputTooLarge(byteCount: data.count, maxByteCount: limits.maxByteCount)
    }
  }

  /// Refuses a decode whose whole-image buffer of `byteCount` bytes exceeds `limits`.
  func checkMemory(_ byteCount: Int, _ limits: DecodingLimits) throws(ImagingError) {
    guard byteCount <= limits.maxMemoryByteCount else {
      throw .decodingMemoryTooLarge(byteCount: byteCount, maxByteCount: limits.maxMemoryByteCount)
    }
  }
#endif
