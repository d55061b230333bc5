import Foundation

// The labels ImageDownscaling's convenience calls had before DexKit spelled its limits
// `maximum...` (as Apple's APIs do): kept so that code written against 0.1.0 still compiles.
extension ImageDownscaling {
  /// `downscaledJPEG(from:maximumDimension:quality:)` under its old label.
  @available(*, deprecated, renamed: "downscaledJPEG(from:maximumDimension:quality:)")
  public func downscaledJPEG(
    from data: Data, maxDimension: Int, quality: Double = 0.8
  ) throws(ImagingError) -> Data {
    try downscaledJPEG(from: data, maximumDimension: maxDimension, quality: quality)
  }

  /// Async `downscaledJPEG(from:maximumDimension:quality:)` under its old label.
  @available(*, deprecated, renamed: "downscaledJPEG(from:maximumDimension:quality:)")
  public func downscaledJPEG(
    from data: Data, maxDimension: Int, quality: Double = 0.8
  ) async throws -> Data {
    try await downscaledJPEG(from: data, maximumDimension: maxDimension, quality: quality)
  }
}
