import Foundation

/// Everything that can go wrong while turning bytes into an upright, downscaled image.
///
/// One enum so that callers can switch over the failure kinds they care about (for example,
/// show "this photo format is not supported" for ``unsupportedFormat(detected:)``) and log the
/// rest. Messages never contain image bytes beyond a four-byte signature.
public enum ImagingError: Error, Sendable, Hashable {
  /// The input held no bytes at all.
  case emptyInput
  /// The bytes are not a JPEG, PNG, HEIF, AVIF or WebP; `detected` names what the magic bytes
  /// look like (for example "GIF", "TIFF" or "unknown data (first bytes 00 01 02 03)"), or which
  /// image of a HEIF is coded with something other than HEVC or AV1 (uncompressed, JPEG...).
  case unsupportedFormat(detected: String)
  /// The decoder rejected the data; `message` is the library's own explanation.
  case corruptData(format: ImageFormat, message: String)
  /// The format is known, but the library installed on this host cannot decode it safely;
  /// `reason` says which library and what to install (for example "libheif 1.15 has no
  /// security limits; install 1.19 or later"). The file is never decoded unguarded.
  case decoderUnavailable(format: ImageFormat, reason: String)
  /// The data ends before the image does and ``DecodingOptions/allowsPartialImages`` is off.
  case truncatedData(format: ImageFormat)
  /// The header claims more pixels than ``DecodingLimits/maximumPixelCount`` allows.
  case imageTooLarge(width: Int, height: Int, maximumPixelCount: Int)
  /// The header claims a side longer than ``DecodingLimits/maximumDimension`` allows.
  case dimensionTooLarge(width: Int, height: Int, maximumDimension: Int)
  /// Decoding would need a whole-image buffer of `byteCount` bytes (a progressive JPEG's
  /// coefficients, an interlaced PNG's pixels), more than ``DecodingLimits/maximumMemoryByteCount``.
  case decodingMemoryTooLarge(byteCount: Int, maximumByteCount: Int)
  /// The input is longer than ``DecodingLimits/maximumByteCount``.
  case inputTooLarge(byteCount: Int, maximumByteCount: Int)
  /// A caller-supplied value is out of range (for example a zero `maximumDimension`).
  case invalidArgument(String)
  /// A buffer for the decoded or encoded image could not be allocated.
  case outOfMemory
  /// The JPEG encoder failed; `message` is libjpeg's explanation.
  case encodingFailed(message: String)
  /// ``IsolatedImageDecoder``'s worker process gave no answer (it crashed, hung, was killed,
  /// answered out of bounds, or could not start); the host is unharmed.
  case isolatedDecodingFailed(IsolatedDecodingFailure)
}

extension ImagingError: CustomStringConvertible, LocalizedError {
  /// A one-line, human-readable explanation suitable for logs.
  public var description: String {
    switch self {
    case .emptyInput:
      return "The image data is empty."
    case .unsupportedFormat(let detected):
      return
        "Unsupported image format: \(detected). Only JPEG, PNG, HEIF (HEIC), AVIF and WebP can be decoded."
    case .corruptData(let format, let message):
      return "The \(format.name) data is corrupt: \(message)"
    case .decoderUnavailable(let format, let reason):
      return "\(format.name) images cannot be decoded on this host: \(reason)."
    case .truncatedData(let format):
      return "The \(format.name) data ends before the image does (truncated file)."
    case .imageTooLarge(let width, let height, let maximumPixelCount):
      return
        "The image is \(width) x \(height) = \(width.multipliedReportingOverflow(by: height).partialValue) pixels, more than the limit of \(maximumPixelCount)."
    case .dimensionTooLarge(let width, let height, let maximumDimension):
      return
        "The image is \(width) x \(height) pixels; a side longer than \(maximumDimension) pixels is not accepted."
    case .decodingMemoryTooLarge(let byteCount, let maximumByteCount):
      return
        "Decoding the image would need a \(byteCount)-byte buffer, more than the limit of \(maximumByteCount) bytes."
    case .inputTooLarge(let byteCount, let maximumByteCount):
      return "The image data is \(byteCount) bytes, more than the limit of \(maximumByteCount)."
    case .invalidArgument(let message):
      return "Invalid argument: \(message)"
    case .outOfMemory:
      return "Not enough memory to decode or encode the image."
    case .encodingFailed(let message):
      return "JPEG encoding failed: \(message)"
    case .isolatedDecodingFailed(let failure):
      return "Isolated decoding failed: \(failure)."
    }
  }

  /// Same as ``description``, for `LocalizedError` consumers.
  public var errorDescription: String? { description }

  /// What to do about it, where the caller or the person can do something.
  public var recoverySuggestion: String? {
    switch self {
    case .emptyInput, .corruptData, .truncatedData:
      "Choose the photo again, or take a new one."
    case .unsupportedFormat: "Convert the photo to JPEG, PNG, HEIC, AVIF or WebP."
    case .imageTooLarge, .inputTooLarge, .dimensionTooLarge, .decodingMemoryTooLarge:
      "Use a smaller photo, or raise the limits in DecodingLimits."
    case .outOfMemory: "Close other apps, or use a smaller photo."
    case .decoderUnavailable: "Install the library version named, or convert the photo to JPEG."
    case .isolatedDecodingFailed(.workerUnavailable):
      "Ship dex-decode-worker beside the executable, or pass its path to IsolatedImageDecoder."
    case .invalidArgument, .encodingFailed, .isolatedDecodingFailed: nil
    }
  }
}
