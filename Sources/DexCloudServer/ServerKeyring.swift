import DexCloud
import Foundation

/// The server secrets a backend accepts: the current one, which issues new sessions, and
/// retired ones that are still accepted until their `acceptedUntil` date.
///
/// Rotation: deploy a keyring whose `current` is the new key and whose `previous` holds the old
/// key with `acceptedUntil` set to at least the session lifetime from now. Sessions issued under
/// the old key keep working until they expire; new sessions use the new key.
public struct ServerKeyring: Sendable {
  /// The key that issues new sessions.
  public let current: ServerKey
  /// Retired keys still accepted for verification.
  public let previous: [ServerKey]

  /// Creates a keyring.
  public init(current: ServerKey, previous: [ServerKey] = []) {
    self.current = current
    self.previous = previous
  }

  /// The key named `id` if it is accepted at `date`.
  public func key(id: String, at date: Date) -> ServerKey? {
    if current.id == id { return current }
    guard let key = previous.first(where: { $0.id == id }) else { return nil }
    if let until = key.acceptedUntil, until <= date { return nil }
    return key
  }
}
