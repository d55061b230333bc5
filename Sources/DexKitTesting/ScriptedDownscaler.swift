import DexImaging
import Foundation

/// An ``/DexImaging/ImageDownscaling`` and ``/DexImaging/ImageDecoding`` that decodes nothing:
/// each call takes the next ``Reply`` (pixels or an ``/DexImaging/ImagingError``), and the last
/// reply repeats once the script is used up.
///
/// It is the Pass-0 engine of a test on any platform, so that a `DexScanner` is built
/// from doubles alone, without DexKit's Linux decoders (`ImageDownscaler`) or a host's ImageIO
/// one:
///
/// ```swift
/// let scanner = DexScanner(
///   classifier: FixedClassifier(category: .animal, label: "tabby"),
///   visionService: ScriptedVisionService(.result(tabby)),
///   downscaler: ScriptedDownscaler())
/// ```
///
/// A downscale answers with the photo's own bytes as the JPEG and as the thumbnail (no pixel is
/// re-encoded: the bytes a store keeps are the bytes the test passed) and the reply's pixels as
/// the Pass-0 pixels the classifier and the text pass read, at the pixels' size. A decode
/// answers with the reply's pixels, whatever the target. It records every photo it was given
/// (``requests``).
public final class ScriptedDownscaler: ImageDownscaling, ImageDecoding, @unchecked Sendable {
  /// What one call of a ``ScriptedDownscaler`` gives.
  public enum Reply: Sendable, Hashable {
    /// Succeeds with these upright pixels.
    case pixels(RGBImage)
    /// Throws this error, as a decoder does for a photo it cannot read.
    case failure(ImagingError)
  }

  /// One call as the double received it.
  public struct Request: Sendable, Hashable {
    /// The photo's bytes.
    public let imageData: Data
    /// The options of a downscale; `nil` for a decode.
    public let options: DownscaleOptions?
  }

  /// Pixels for a test that does not look at them: 8 × 8, mid-grey.
  public static let grayPixels: RGBImage = {
    // 8 × 8 × 3 bytes: the size RGBImage checks, so the initialiser cannot refuse it.
    guard let image = RGBImage(width: 8, height: 8, pixels: [UInt8](repeating: 128, count: 192))
    else { preconditionFailure("an 8 × 8 RGB image holds 192 bytes") }
    return image
  }()

  // The protocols' calls are synchronous, so a lock (not an actor) guards the script's cursor
  // and the record; it is held only to read or append, never while calling out.
  private let lock = NSLock()
  private let script: [Reply]
  private var nextReply = 0
  private var received: [Request] = []

  /// Creates a double that plays `replies` in order and then repeats the last one.
  ///
  /// - Parameter replies: the script; an empty one answers ``grayPixels`` to every call.
  public init(_ replies: [Reply]) {
    self.script = replies
  }

  /// Creates a double that gives `reply` to every call (by default ``grayPixels``).
  public convenience init(_ reply: Reply = .pixels(ScriptedDownscaler.grayPixels)) {
    self.init([reply])
  }

  /// Every call received so far, oldest first.
  public var requests: [Request] { lock.withLock { received } }

  /// See ``/DexImaging/ImageDownscaling/downscale(_:options:)``: plays the next reply.
  ///
  /// - Throws: the reply's ``/DexImaging/ImagingError``.
  public func downscale(
    _ imageData: Data, options: DownscaleOptions
  ) throws(ImagingError) -> DownscaledImage {
    let pixels = try play(Request(imageData: imageData, options: options))
    return DownscaledImage(
      jpegData: imageData, pixelWidth: pixels.width, pixelHeight: pixels.height,
      sourceFormat: (try? ImageFormat.sniff(imageData)) ?? .jpeg,
      sourcePixelWidth: pixels.width, sourcePixelHeight: pixels.height, appliedOrientation: .up,
      pixels: pixels, thumbnailJPEG: imageData)
  }

  /// See ``/DexImaging/ImageDecoding/decodePixels(from:target:options:)``: plays the next reply.
  ///
  /// - Throws: the reply's ``/DexImaging/ImagingError``.
  public func decodePixels(
    from imageData: Data, target: PixelTarget, options: DecodingOptions
  ) throws(ImagingError) -> RGBImage {
    try play(Request(imageData: imageData, options: nil))
  }

  private func play(_ request: Request) throws(ImagingError) -> RGBImage {
    let reply = lock.withLock { () -> Reply in
      received.append(request)
      defer { nextReply += 1 }
      return script.isEmpty ? .pixels(Self.grayPixels) : script[min(nextReply, script.count - 1)]
    }
    switch reply {
    case .pixels(let pixels): return pixels
    case .failure(let error): throw error
    }
  }
}
