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
  ///   - categoryHint: the on-device guess (for example "Plant"), a weak hint only.
  func identify(imageData: Data, categoryHint: String?) async throws -> ScanResult
}
