import Foundation

/// Why a scan ended without a result: a typed reason a host can act on (ask for another photo,
/// retry later, say the backend is unreachable) instead of a bogus "Unknown" entry.
public enum DexScanError: Error, Sendable, Hashable {
  /// The photo could not be decoded (empty, corrupt, unsupported or too large); carries the
  /// decoder's message.
  case unreadableImage(String)
  /// The cloud failed and there was no local guess to fall back on; carries the cloud error.
  case identificationFailed(String)
  /// Neither pass produced anything (for example offline, with no local guess).
  case nothingIdentified(String)
  /// The cloud pass took longer than ``DexScanner/Configuration/cloudTimeout``.
  case timedOut
  /// The scan was cancelled.
  case cancelled
}

extension DexScanError: LocalizedError {
  /// A one-line explanation for error banners and logs.
  public var errorDescription: String? {
    switch self {
    case .unreadableImage(let reason): "The photo could not be read: \(reason)"
    case .identificationFailed(let reason): "Identification failed: \(reason)"
    case .nothingIdentified(let reason): reason
    case .timedOut: "Identification took too long."
    case .cancelled: "The scan was cancelled."
    }
  }
}
