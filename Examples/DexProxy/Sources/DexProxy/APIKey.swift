/// The model provider's API key, which only the proxy holds.
///
/// It exists so the key can travel through configuration without ever being printed: its
/// `description`, `debugDescription` and reflection show a fixed placeholder. (DexCloud's
/// `SigningSecret` cannot be used here because it does not expose its value outside DexCloud,
/// and the proxy must send this key in an `Authorization` header.)
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The key as configured; only read when building the upstream `Authorization` header.
  let value: String

  /// Wraps a key; `nil` when it is empty or only whitespace.
  public init?(_ value: String) {
    guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
    self.value = value
  }

  /// Always `<redacted>`.
  public var description: String { "<redacted>" }
  /// Always `<redacted>`.
  public var debugDescription: String { "<redacted>" }
  /// A mirror without children, so `dump(_:)` stays redacted.
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
