import DexKitTesting
import Foundation

/// A folder under the system's temporary directory (or `base`), removed when the test ends.
final class TemporaryFolder {
  let path: String

  init(base: String = NSTemporaryDirectory()) throws {
    path = (base as NSString).appendingPathComponent("pixscan-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// `path/relative`.
  func file(_ relative: String) -> String { path + "/" + relative }

  /// Writes `data` at `relative` (creating folders) and returns the absolute path.
  @discardableResult
  func write(_ data: Data, to relative: String) throws -> String {
    let target = file(relative)
    try FileManager.default.createDirectory(
      atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try data.write(to: URL(fileURLWithPath: target))
    return target
  }

  /// Copies DexKitTesting's sample photos in as `name.jpg`.
  func addSamplePhotos(_ photos: [SamplePhoto] = [.cat, .dog, .flower]) throws {
    for photo in photos { try write(photo.data, to: photo.fileName) }
  }

  func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: file(relative)) }
}

/// A PNG header (signature, IHDR, optional eXIf, a first IDAT) of `width` x `height`: what
/// the screenshot rule reads.
func pngHeader(width: Int, height: Int, exif: Bool = false) -> Data {
  func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    let length = UInt32(payload.count)
    return withUnsafeBytes(of: length.bigEndian, Array.init) + Array(type.utf8) + payload
      + [0, 0, 0, 0]
  }
  func be(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).bigEndian, Array.init) }
  var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  bytes += chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
  if exif { bytes += chunk("eXIf", Array("MM\0*".utf8) + [0, 0, 0, 8]) }
  bytes += chunk("IDAT", [0, 0])
  return Data(bytes)
}
