import DexImaging
import Foundation

/// Why a scan ended without a result, or why its cloud pass fell back: a typed reason a host can
/// act on (ask for another photo, retry later, say the backend is unreachable) instead of a
/// bogus "Unknown" entry. The underlying errors are kept as they were thrown.
public enum DexScanError: Error, Sendable {
  /// The photo could not be decoded (empty, corrupt, unsupported or too large).
  case unreadableImage(ImagingError)
  /// The cloud pass failed: the error the vision service threw (a `DexCloudError` for
  /// transport and status failures, a `ScanResult.ParseError` for an unusable reply, or a
  /// host service's own error).
  case identificationFailed(any Error)
  /// Neither pass produced anything (for example offline, with no local guess); says why.
  case nothingIdentified(String)
  /// The cloud pass took longer than ``DexScanner/Configuration/cloudTimeout``.
  case timedOut
  /// The scan was cancelled.
  case cancelled
}

extension DexScanError: Equatable {
  /// Same case and same underlying error (compared by type and description for
  /// ``identificationFailed(_:)``, whose errors need not be `Equatable`).
  public static func == (lhs: DexScanError, rhs: DexScanError) -> Bool {
    switch (lhs, rhs) {
    case (.unreadableImage(let a), .unreadableImage(let b)): a == b
    case (.identificationFailed(let a), .identificationFailed(let b)):
      type(of: a) == type(of: b) && String(describing: a) == String(describing: b)
    case (.nothingIdentified(let a), .nothingIdentified(let b)): a == b
    case (.timedOut, .timedOut), (.cancelled, .cancelled): true
    default: false
    }
  }
}

extension DexScanError: LocalizedError {
  /// A one-line explanation for error banners and logs.
  public var errorDescription: String? {
    switch self {
    case .unreadableImage(let error): "The photo could not be read: \(error)"
    case .identificationFailed(let error): "Identification failed: \(error)"
    case .nothingIdentified(let reason): reason
    case .timedOut: "Identification took too long."
    case .cancelled: "The scan was cancelled."
    }
  }
}
