import Foundation

/// A ``PixelDecoding`` made from a closure, so that any decoding function (DexImaging's own
/// decoder with its options bound, a platform codec, a test stub) can feed ``ImageClassifier``
/// without declaring a type.
///
/// ```swift
/// let classifier = ImageClassifier(
///   decoder: AnyPixelDecoder { data in try myDecoder.decodePixels(from: data, target: .minimumShortSide(256)) })
/// ```
public struct AnyPixelDecoder: PixelDecoding {
  private let decode: @Sendable (Data) throws -> RGBImage

  /// Wraps `decode`, which returns upright pixels or throws.
  public init(_ decode: @escaping @Sendable (Data) throws -> RGBImage) {
    self.decode = decode
  }

  /// Calls the wrapped closure.
  public func decodePixels(from data: Data) throws -> RGBImage {
    try decode(data)
  }
}
