import Foundation

// The async variants run the synchronous work on the global concurrent executor (`@concurrent`)
// so that decoding never blocks the caller's actor. Cancellation is checked before the work
// starts and before the result is returned; a decode that has started runs to completion.

extension ImageDownscaling {
  /// Async ``downscale(_:options:)``: runs off the caller's executor and honours cancellation.
  ///
  /// - Throws: ``ImagingError``, or `CancellationError` when the task is cancelled.
  @concurrent
  public func downscale(
    _ imageData: Data, options: DownscaleOptions
  ) async throws
    -> DownscaledImage
  {
    try await runDetachedFromCaller { () throws(ImagingError) in
      try self.downscale(imageData, options: options)
    }
  }

  /// Async ``downscaledJPEG(from:maximumDimension:quality:)``.
  @concurrent
  public func downscaledJPEG(
    from data: Data, maximumDimension: Int, quality: Double = 0.8
  ) async throws -> Data {
    try await downscale(
      data, options: DownscaleOptions(maximumDimension: maximumDimension, quality: quality)
    ).jpegData
  }
}

extension ImageDecoding {
  /// Async ``decodePixels(from:target:options:)``: runs off the caller's executor.
  ///
  /// - Throws: ``ImagingError``, or `CancellationError` when the task is cancelled.
  @concurrent
  public func decodePixels(
    from imageData: Data, target: PixelTarget, options: DecodingOptions = DecodingOptions()
  ) async throws -> RGBImage {
    try await runDetachedFromCaller { () throws(ImagingError) in
      try self.decodePixels(from: imageData, target: target, options: options)
    }
  }
}

/// Checks cancellation around a synchronous piece of work. Kept sync-closure based so that the
/// call inside always resolves to the synchronous overload.
func runDetachedFromCaller<Result: Sendable>(
  _ work: () throws(ImagingError) -> Result
) async throws -> Result {
  try Task.checkCancellation()
  let result = try work()
  try Task.checkCancellation()
  return result
}
