/// A ``TokenStore`` that lives as long as the process: the default, and the right choice for
/// servers and tests.
public actor InMemoryTokenStore: TokenStore {
  private var credential: SessionCredential?

  /// Creates an empty store, or one holding `credential`.
  public init(credential: SessionCredential? = nil) {
    self.credential = credential
  }

  /// See ``TokenStore/loadCredential()``.
  public func loadCredential() async throws -> SessionCredential? { credential }

  /// See ``TokenStore/saveCredential(_:)``.
  public func saveCredential(_ credential: SessionCredential) async throws {
    self.credential = credential
  }

  /// See ``TokenStore/removeCredential()``.
  public func removeCredential() async throws { credential = nil }
}
