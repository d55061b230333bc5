import Foundation

// The async variants run the synchronous work on the global concurrent executor (`@concurrent`)
// so that decoding never blocks the caller's actor. Cancellation is checked before the work
// starts and before the result is returned; a decode that has started runs to completion.
// ``IsolatedImageDecoder`` waits for a worker process rather than computing, so its own async
// methods take over: they wait holding no thread of the cooperative pool (one thread per core),
// and cancelling the task ends the worker.

extension ImageDownscaling {
  /// Async ``downscale(_:options:)``: runs off the caller's executor and honours cancellation.
  /// An ``IsolatedImageDecoder`` waits for its worker here holding no thread of Swift's
  /// cooperative pool.
  ///
  /// - Throws: ``ImagingError``, or `CancellationError` when the task is cancelled.
  @concurrent
  public func downscale(
    _ imageData: Data, options: DownscaleOptions
  ) async throws
    -> DownscaledImage
  {
    #if os(Linux) && SystemImageCodecs
      if let isolated = self as? IsolatedImageDecoder {
        return try await isolated.downscale(imageData, options: options)
      }
    #endif
    return try await runDetachedFromCaller { () throws(ImagingError) in
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
  /// Async ``decodePixels(from:target:options:)``: runs off the caller's executor. An
  /// ``IsolatedImageDecoder`` waits for its worker here holding no thread of Swift's
  /// cooperative pool.
  ///
  /// - Throws: ``ImagingError``, or `CancellationError` when the task is cancelled.
  @concurrent
  public func decodePixels(
    from imageData: Data, target: PixelTarget, options: DecodingOptions = DecodingOptions()
  ) async throws -> RGBImage {
    #if os(Linux) && SystemImageCodecs
      if let isolated = self as? IsolatedImageDecoder {
        return try await isolated.decodePixels(from: imageData, target: target, options: options)
      }
    #endif
    return try await runDetachedFromCaller { () throws(ImagingError) in
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
