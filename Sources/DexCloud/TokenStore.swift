/// Where the client keeps its session credential between launches.
///
/// ``InMemoryTokenStore`` is the default, ``FileTokenStore`` keeps it in a 0600 file, and an
/// Apple host app plugs in the keychain by conforming its own type. Stores see the session
/// secret, so they must never log what they store.
public protocol TokenStore: Sendable {
  /// The stored credential, or `nil` when there is none.
  func loadCredential() async throws -> SessionCredential?
  /// Replaces the stored credential.
  func saveCredential(_ credential: SessionCredential) async throws
  /// Forgets the stored credential.
  func removeCredential() async throws
}
