import DexModel
import Foundation

/// The cloud identification pass: a photo in, a structured ``/DexModel/ScanResult`` out.
///
/// The scan flow depends on this protocol rather than on ``DexVisionService`` so that it can be
/// tested with a stand-in and so a host can route identification elsewhere.
public protocol DexVisionServicing: Sendable {
  /// Identifies the main subject of `imageData` (JPEG or PNG bytes).
  ///
  /// - Parameters:
  ///   - imageData: the encoded photo, already downscaled.
  ///   - categoryHint: the on-device guess's category (for example ``/DexModel/DexCategory/plant``),
  ///     a weak hint only; `nil` when the local pass found nothing.
  func identify(imageData: Data, categoryHint: DexCategory?) async throws -> ScanResult

  /// Identifies the main subject of `imageData`, giving up at `deadline`: the scanner's one
  /// deadline for the whole cloud pass, retries and their waits included.
  ///
  /// A conformance that can stop on its own (``DexVisionService`` passes the deadline to
  /// ``ApiClient`` as its time budget) implements this and throws a ``DexCloudError`` of kind
  /// ``DexCloudError/Kind/timedOut`` when the deadline passes. The default implementation calls
  /// ``identify(imageData:categoryHint:)`` and leaves the deadline to the caller, which stops
  /// waiting at it.
  ///
  /// - Parameters:
  ///   - imageData: the encoded photo, already downscaled.
  ///   - categoryHint: the on-device guess's category, a weak hint only.
  ///   - deadline: the instant by which the answer is needed.
  func identify(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant
  ) async throws -> ScanResult
}

extension DexVisionServicing {
  /// Calls ``identify(imageData:categoryHint:)``; the caller stops waiting at `deadline`.
  public func identify(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant
  ) async throws -> ScanResult {
    try await identify(imageData: imageData, categoryHint: categoryHint)
  }
}
