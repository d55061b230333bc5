import Foundation

/// Decodes encoded image bytes into upright RGB pixels for the classifier.
///
/// ``ImageClassifier`` takes its decoder through this protocol so that the classifier does not
/// depend on a particular codec: DexImaging's JPEG/PNG decoder conforms to it, a host can
/// substitute a platform decoder, and tests can feed plain PPM files through ``PPMDecoder``.
/// Implementations apply the EXIF orientation and should downscale huge photos on decode (the
/// classifier only needs a short side of 256 px).
public protocol PixelDecoding: Sendable {
  /// Returns the decoded, upright pixels of `data`, or throws if the bytes are not an image it
  /// can decode.
  func decodePixels(from data: Data) throws -> RGBImage
}
