#if os(Linux) && SystemImageCodecs
  import Foundation

  // The checks every decoder (JPEG, PNG, HEIF, AVIF, WebP) runs on a header's sizes before it
  // allocates, so that each format names the same limit with the same error.

  /// Refuses sizes beyond `limits` (and degenerate ones) before anything big is allocated: the
  /// pixel count first, then each side.
  func checkLimits(_ size: DownscaleGeometry.Size, _ limits: DecodingLimits) throws(ImagingError) {
    let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
    guard size.width > 0, size.height > 0, !overflow, pixels <= limits.maximumPixelCount else {
      throw .imageTooLarge(
        width: size.width, height: size.height, maximumPixelCount: limits.maximumPixelCount)
    }
    let maximumDimension = limits.effectiveMaximumDimension
    guard size.width <= maximumDimension, size.height <= maximumDimension else {
      throw .dimensionTooLarge(
        width: size.width, height: size.height, maximumDimension: maximumDimension)
    }
  }

  /// Refuses a call before any decoding: a target of no size, no bytes, or more bytes than
  /// `limits` allow (the in-process decoder's first checks, and the isolated one's before it
  /// sends anything to a worker).
  func checkRequest(
    _ data: Data, target: PixelTarget, limits: DecodingLimits
  ) throws(ImagingError) {
    switch target {
    case .fitting(let maximumDimension) where maximumDimension <= 0:
      throw .invalidArgument("maximumDimension must be positive, got \(maximumDimension)")
    case .minimumShortSide(let side) where side <= 0:
      throw .invalidArgument("minimumShortSide must be positive, got \(side)")
    default: break
    }
    guard !data.isEmpty else { throw .emptyInput }
    guard data.count <= limits.maximumByteCount else {
      throw .inputTooLarge(byteCount: data.count, maximumByteCount: limits.maximumByteCount)
    }
  }

  /// Refuses a decode whose whole-image buffer of `byteCount` bytes exceeds `limits`.
  func checkMemory(_ byteCount: Int, _ limits: DecodingLimits) throws(ImagingError) {
    guard byteCount <= limits.maximumMemoryByteCount else {
      throw .decodingMemoryTooLarge(
        byteCount: byteCount, maximumByteCount: limits.maximumMemoryByteCount)
    }
  }
#endif
