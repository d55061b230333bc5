import Foundation
import Testing

@testable import DexImaging

/// Loads a file from the test bundle's Resources folder (or a folder inside it).
func resource(_ name: String, in subdirectory: String = "Resources") throws -> Data {
  let url = try #require(
    Bundle.module.url(forResource: name, withExtension: nil, subdirectory: subdirectory),
    "missing test resource \(subdirectory)/\(name)")
  return try Data(contentsOf: url)
}

/// Peak signal-to-noise ratio in dB between two equally sized RGB images (infinity if identical).
func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
  guard a.width == b.width, a.height == b.height else { return -.infinity }
  var sum = 0.0
  for index in a.pixels.indices {
    let d = Double(a.pixels[index]) - Double(b.pixels[index])
    sum += d * d
  }
  let mse = sum / Double(a.pixels.count)
  return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

/// Largest per-channel difference.
func maxDifference(_ a: RGBImage, _ b: RGBImage) -> Int {
  zip(a.pixels, b.pixels).reduce(0) { Swift.max($0, abs(Int($1.0) - Int($1.1))) }
}

/// The image converted to luma in all three channels (BT.601), for grayscale comparisons.
func luma(_ image: RGBImage) -> RGBImage {
  var pixels = image.pixels
  for index in stride(from: 0, to: pixels.count, by: 3) {
    let y =
      (299 * Int(pixels[index]) + 587 * Int(pixels[index + 1]) + 114 * Int(pixels[index + 2]) + 500)
      / 1000
    pixels[index] = UInt8(y)
    pixels[index + 1] = UInt8(y)
    pixels[index + 2] = UInt8(y)
  }
  return RGBImage(width: image.width, height: image.height, pixels: pixels) ?? image
}

/// Offset of the first SOFn marker (FFC0...FFC2) in a JPEG, to patch dimensions or the process.
func startOfFrameOffset(_ jpeg: [UInt8]) -> Int? {
  var position = 2
  while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
    let marker = jpeg[position + 1]
    if (0xC0...0xC2).contains(marker) { return position }
    let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
    position += 2 + length
  }
  return nil
}

/// CRC-32 (ISO 3309) as PNG chunks use it.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
  var crc: UInt32 = 0xFFFF_FFFF
  for byte in bytes {
    crc ^= UInt32(byte)
    for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
  }
  return ~crc
}

/// A PNG chunk with length and CRC.
func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
  let typeBytes = Array(type.utf8)
  let length = UInt32(body.count)
  let crc = crc32(typeBytes + body)
  return [
    UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
    UInt8(length & 0xFF),
  ] + typeBytes + body + [
    UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF),
  ]
}

func bigEndian32(_ value: UInt32) -> [UInt8] {
  [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}
