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
}
