import DexCloud
import Foundation

/// Unpadded base64url (RFC 4648 §5), used inside session ids and session secrets so they are
/// safe in headers and JSON without escaping. Decoding is canonical: a string whose unused
/// trailing bits are set, which lenient decoders read as the same bytes, is refused, so each
/// byte sequence has exactly one accepted spelling and a session id cannot be re-spelled.
enum Base64URL {
  static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  static func decode(_ string: String) -> Data? {
    guard
      string.utf8.allSatisfy({ byte in
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
      })
    else { return nil }
    var base64 = string.replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    while !base64.utf8.count.isMultiple(of: 4) { base64.append("=") }
    guard let data = Data(base64Encoded: base64), encode(data) == string else { return nil }
    return data
  }
}
