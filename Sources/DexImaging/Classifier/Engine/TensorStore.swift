import Foundation

/// Reads named tensors out of a converted weights blob, checking each against its manifest entry.
struct TensorStore {
  private let entries: [String: WeightsManifest.Tensor]
  private let blob: Data

  init(manifest: WeightsManifest, blob: Data) throws(ClassifierError) {
    var entries: [String: WeightsManifest.Tensor] = [:]
    for tensor in manifest.tensors {
      guard entries[tensor.name] == nil else {
        throw .invalidManifest("tensor \(tensor.name) appears twice")
      }
      entries[tensor.name] = tensor
    }
    self.entries = entries
    self.blob = blob
  }

  /// The tensor `name` as `Float`s, after checking shape, type and bounds; rejects non-finite values.
  func tensor(_ name: String, shape: [Int]) throws(ClassifierError) -> [Float] {
    guard let entry = entries[name] else { throw .invalidWeights("tensor \(name) is missing") }
    guard entry.shape == shape else {
      throw .invalidWeights("tensor \(name) has shape \(entry.shape), expected \(shape)")
    }
    let count = shape.reduce(1, *)
    let elementSize: Int
    switch entry.dtype {
    case "float16": elementSize = 2
    case "float32": elementSize = 4
    default: throw .invalidWeights("tensor \(name) has unsupported type \(entry.dtype)")
    }
    guard entry.byteCount == count * elementSize, entry.offset >= 0,
      entry.offset <= blob.count - entry.byteCount
    else { throw .invalidWeights("tensor \(name) lies outside the blob or has the wrong size") }
    var values = [Float](repeating: 0, count: count)
    let offset = entry.offset
    let finite = blob.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
      var finite = true
      for i in 0..<count {
        let value: Float
        if elementSize == 2 {
          let bits = UInt16(
            littleEndian: raw.loadUnaligned(fromByteOffset: offset + 2 * i, as: UInt16.self))
          value = Self.float(fromHalf: bits)
        } else {
          let bits = UInt32(
            littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4 * i, as: UInt32.self))
          value = Float(bitPattern: bits)
        }
        finite = finite && value.isFinite
        values[i] = value
      }
      return finite
    }
    guard finite else { throw .invalidWeights("tensor \(name) holds non-finite values") }
    return values
  }

  /// IEEE 754 binary16 → binary32, written out so that it also builds where `Float16` is
  /// unavailable (macOS on Intel).
  static func float(fromHalf bits: UInt16) -> Float {
    let sign = UInt32(bits & 0x8000) << 16
    let exponent = Int((bits >> 10) & 0x1F)
    let mantissa = UInt32(bits & 0x3FF)
    switch exponent {
    case 0:
      // Zero or subnormal: mantissa × 2⁻²⁴.
      let magnitude = Float(mantissa) * 0x1p-24
      return sign == 0 ? magnitude : -magnitude
    case 31:
      return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13))
    default:
      return Float(bitPattern: sign | (UInt32(exponent + 112) << 23) | (mantissa << 13))
    }
  }
}
