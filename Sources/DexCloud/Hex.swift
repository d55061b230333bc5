import Foundation

/// Lower-case hexadecimal encoding and strict decoding, shared by the signer and the verifier.
package enum Hex {
  private static let digits = Array("0123456789abcdef".utf8)

  /// Lower-case hex of `bytes`.
  package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String
  where Bytes.Element == UInt8 {
    let input = Array(bytes)
    return String(unsafeUninitializedCapacity: input.count * 2) { buffer in
      var index = 0
      for byte in input {
        buffer[index] = digits[Int(byte >> 4)]
        buffer[index + 1] = digits[Int(byte & 0x0F)]
        index += 2
      }
      return index
    }
  }

  /// Decodes lower-case hex only; `nil` for odd lengths, upper-case or any other character.
  package static func decodeLowercase(_ string: String) -> [UInt8]? {
    let utf8 = Array(string.utf8)
    guard utf8.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
      guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func nibble(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}
