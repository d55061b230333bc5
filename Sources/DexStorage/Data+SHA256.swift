import Crypto
import Foundation

extension Data {
  /// The lower-case hex SHA-256 of these bytes (swift-crypto): the fingerprint DexStorage keeps
  /// for each image, to recognise the same photo saved twice and to verify files after a crash
  /// or an import.
  var sha256Hex: String { SHA256.hash(data: self).lowercaseHex }
}

extension SHA256Digest {
  /// The digest in lower-case hex, the form the store and archives record.
  var lowercaseHex: String {
    map { byte in
      let hex = String(byte, radix: 16)
      return byte < 16 ? "0" + hex : hex
    }.joined()
  }
}
