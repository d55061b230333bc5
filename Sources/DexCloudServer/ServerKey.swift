import DexCloud
import Foundation

/// One server secret in a ``ServerKeyring``, with the id that session ids name it by.
///
/// The server secret never leaves the backend: session ids are authenticated with it and
/// session secrets are derived from it, so no per-session state is stored anywhere.
public struct ServerKey: Sendable {
  /// A short identifier (`[A-Za-z0-9_-]`, 1–32 characters) embedded in every session id.
  public let id: String
  /// The secret itself.
  public let secret: SigningSecret
  /// When a retired key stops being accepted; `nil` for the current key or a key with no end.
  public let acceptedUntil: Date?

  /// Creates a key; `nil` when `id` is empty, too long or uses other characters.
  public init?(id: String, secret: SigningSecret, acceptedUntil: Date? = nil) {
    guard (1...32).contains(id.utf8.count),
      id.unicodeScalars.allSatisfy({
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || $0 == "-" || $0 == "_"
      })
    else { return nil }
    self.id = id
    self.secret = secret
    self.acceptedUntil = acceptedUntil
  }
}
