import DexImaging
import Foundation

/// A test-only ``ImageDecoding`` conformance for binary Netpbm images (PPM `P6` colour, PGM `P5`
/// grey, 8-bit), always at their stored size.
///
/// It drives the classifier end to end from bytes without a JPEG codec (the fixtures are PPM
/// files). Headers are bounded: at most ``maximumPixelCount`` pixels are ever allocated,
/// whatever the header claims.
struct PPMDecoder: ImageDecoding, Hashable {
  /// The largest image, in pixels, the decoder accepts.
  var maximumPixelCount: Int

  /// Creates a decoder; the default limit is 64 megapixels.
  init(maximumPixelCount: Int = 64 << 20) {
    self.maximumPixelCount = maximumPixelCount
  }

  /// Why a byte buffer is not a decodable PPM/PGM image.
  enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes do not start with `P5` or `P6`.
    case notNetpbm
    /// The header is malformed (missing or non-numeric fields, comment without end).
    case malformedHeader
    /// The maximum sample value is not 255 (16-bit and other depths are not supported).
    case unsupportedDepth(Int)
    /// The dimensions are zero or exceed ``PPMDecoder/maximumPixelCount``.
    case unsupportedSize(width: Int, height: Int)
    /// Fewer sample bytes follow the header than the dimensions require.
    case truncated(expected: Int, actual: Int)

    /// A readable explanation.
    var description: String {
      switch self {
      case .notNetpbm: "not a binary PPM/PGM image"
      case .malformedHeader: "malformed PPM header"
      case .unsupportedDepth(let maxValue): "unsupported PPM maximum value \(maxValue) (only 255)"
      case .unsupportedSize(let width, let height): "unsupported PPM size \(width)×\(height)"
      case .truncated(let expected, let actual):
        "truncated PPM data: \(actual) of \(expected) bytes"
      }
    }
  }

  /// Decodes `data` at its stored size, whatever `target` asks; failures are
  /// ``ImagingError/corruptData(format:message:)`` carrying the ``DecodingError``'s text.
  func decodePixels(
    from data: Data, target: PixelTarget, options: DecodingOptions
  ) throws(ImagingError) -> RGBImage {
    do {
      return try decodePixels(from: data)
    } catch {
      throw .unsupportedFormat(detected: "\(error)")
    }
  }

  /// Decodes `data`; throws ``DecodingError``.
  func decodePixels(from data: Data) throws -> RGBImage {
    let bytes = [UInt8](data.prefix(4096))
    guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P"),
      bytes[1] == UInt8(ascii: "6") || bytes[1] == UInt8(ascii: "5")
    else { throw DecodingError.notNetpbm }
    let channels = bytes[1] == UInt8(ascii: "6") ? 3 : 1
    var index = 2
    var fields: [Int] = []
    while fields.count < 3 {
      guard let value = Self.nextField(bytes, &index) else { throw DecodingError.malformedHeader }
      fields.append(value)
    }
    // Exactly one whitespace byte separates the header from the samples.
    guard index < bytes.count, Self.isSpace(bytes[index]) else {
      throw DecodingError.malformedHeader
    }
    index += 1
    let (width, height, maxValue) = (fields[0], fields[1], fields[2])
    guard maxValue == 255 else { throw DecodingError.unsupportedDepth(maxValue) }
    guard width > 0, height > 0, width <= maximumPixelCount, height <= maximumPixelCount,
      width.multipliedReportingOverflow(by: height).partialValue <= maximumPixelCount,
      !width.multipliedReportingOverflow(by: height).overflow
    else { throw DecodingError.unsupportedSize(width: width, height: height) }
    let expected = width * height * channels
    let available = data.count - index
    guard available >= expected else {
      throw DecodingError.truncated(expected: expected, actual: max(available, 0))
    }
    let start = data.startIndex + index
    let samples = data[start..<(start + expected)]
    let pixels: [UInt8]
    if channels == 3 {
      pixels = [UInt8](samples)
    } else {
      var rgb = [UInt8](repeating: 0, count: expected * 3)
      for (i, value) in samples.enumerated() {
        rgb[3 * i] = value
        rgb[3 * i + 1] = value
        rgb[3 * i + 2] = value
      }
      pixels = rgb
    }
    guard let image = RGBImage(width: width, height: height, pixels: pixels) else {
      throw DecodingError.unsupportedSize(width: width, height: height)
    }
    return image
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
  }

  /// Parses the next decimal header field, skipping whitespace and `#` comments; at most 9 digits.
  private static func nextField(_ bytes: [UInt8], _ index: inout Int) -> Int? {
    while index < bytes.count {
      if isSpace(bytes[index]) {
        index += 1
      } else if bytes[index] == UInt8(ascii: "#") {
        while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
      } else {
        break
      }
    }
    var value = 0
    var digits = 0
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
      digits += 1
      index += 1
      if digits > 9 { return nil }
    }
    return digits > 0 ? value : nil
  }
}
