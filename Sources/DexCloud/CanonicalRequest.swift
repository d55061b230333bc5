import Crypto
import Foundation

/// The exact string that is signed: `METHOD\nPATH\nTIMESTAMP\nhex(SHA256(body))`.
///
/// It exists as a value so that the client, the verifier, tests and any other backend build the
/// same bytes from the same four fields:
/// - `METHOD` is upper-cased (`POST`).
/// - `PATH` is the request target exactly as sent: the percent-encoded path, followed by `?` and
///   the percent-encoded query when there is one (`/v1/vision?lang=en%20GB`). No decoding or
///   re-ordering happens on either side.
/// - `TIMESTAMP` is whole Unix seconds in decimal, the same text as the `x-timestamp` header.
/// - the last line is the lower-case hex SHA-256 of the raw body; an empty body hashes to
///   `e3b0c442…b855`.
public struct CanonicalRequest: Sendable, Equatable {
  /// The upper-cased HTTP method.
  public let method: String
  /// The request target: the percent-encoded path plus `?query` when present.
  public let path: String
  /// The signing time as sent in `x-timestamp`.
  public let timestamp: String
  /// The lower-case hex SHA-256 of the body.
  public let bodySHA256: String

  /// Builds the canonical request from the raw body, hashing it.
  public init(method: String, path: String, timestamp: String, body: Data) {
    self.init(
      method: method, path: path, timestamp: timestamp,
      bodySHA256: Hex.encode(SHA256.hash(data: body)))
  }

  /// Builds the canonical request from an already-computed body digest (lower-case hex).
  public init(method: String, path: String, timestamp: String, bodySHA256: String) {
    self.method = method.uppercased()
    self.path = path
    self.timestamp = timestamp
    self.bodySHA256 = bodySHA256
  }

  /// The string that is fed to HMAC-SHA256.
  public var stringValue: String { "\(method)\n\(path)\n\(timestamp)\n\(bodySHA256)" }

  /// The UTF-8 bytes of ``stringValue``, built without an intermediate string.
  var utf8Bytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(
      method.utf8.count + path.utf8.count + timestamp.utf8.count + bodySHA256.utf8.count + 3)
    bytes.append(contentsOf: method.utf8)
    bytes.append(0x0A)
    bytes.append(contentsOf: path.utf8)
    bytes.append(0x0A)
    bytes.append(contentsOf: timestamp.utf8)
    bytes.append(0x0A)
    bytes.append(contentsOf: bodySHA256.utf8)
    return bytes
  }
}
