import Crypto
import Foundation

/// A shared secret used as an HMAC-SHA256 key: a bootstrap key, a session secret or a server
/// secret.
///
/// It exists so that secrets have a type of their own that can never leak by accident: its
/// `description`, `debugDescription` and reflection all print a fixed placeholder, so
/// interpolating a configuration, a credential or an error into a log line never reveals the
/// value. The key bytes are the UTF-8 bytes of the string exactly as configured or as delivered
/// by `/auth_token`.
///
/// There is deliberately no string-literal conformance: secrets come from configuration, never
/// from source code.
public struct SigningSecret: Sendable, Equatable, Codable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// The placeholder printed wherever a secret would otherwise appear.
  public static let redactedPlaceholder = "<redacted>"

  let value: String

  /// Wraps a secret read from configuration; `nil` when it is empty or only whitespace.
  public init?(_ value: String) {
    guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
    self.value = value
  }

  /// Wraps a value the caller knows is non-empty (a derived 43-character secret).
  package init(nonEmpty value: String) {
    self.value = value
  }

  /// The HMAC key: the UTF-8 bytes of the secret.
  package var symmetricKey: SymmetricKey { SymmetricKey(data: Data(value.utf8)) }

  /// Always ``redactedPlaceholder``.
  public var description: String { Self.redactedPlaceholder }
  /// Always ``redactedPlaceholder``.
  public var debugDescription: String { Self.redactedPlaceholder }
  /// A mirror without children, so `dump(_:)` and default struct descriptions stay redacted.
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

  /// Compares in constant time (for equal lengths), so equality checks do not leak the secret.
  public static func == (lhs: SigningSecret, rhs: SigningSecret) -> Bool {
    let left = Array(lhs.value.utf8)
    let right = Array(rhs.value.utf8)
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for index in left.indices { difference |= left[index] ^ right[index] }
    return difference == 0
  }

  /// Decodes the secret from a single JSON string.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let raw = try container.decode(String.self)
    guard let secret = SigningSecret(raw) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A secret must not be empty.")
    }
    self = secret
  }

  /// Encodes the secret as a single JSON string (only token stores do this).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}
