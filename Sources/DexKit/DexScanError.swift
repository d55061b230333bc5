import DexCloud
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
  /// host service's own error), or `ScanResult.ParseError.noIdentification` when the scanner
  /// refused what the service answered: no entry at all, or one that names nothing (a
  /// placeholder "Unknown"). Timeouts are never this case but ``timedOut``.
  case identificationFailed(any Error)
  /// Neither pass produced anything (for example offline, with no local guess); says why.
  case nothingIdentified(String)
  /// The cloud pass reached its deadline, ``DexScanner/Configuration/cloudTimeout``: the
  /// scanner stopped waiting, or the service (for ``/DexCloud/DexVisionService``, the client's
  /// budget or its last attempt's timeout) gave up.
  case timedOut
  /// The scan was cancelled.
  case cancelled

  /// The scan error for what the cloud pass threw: ``timedOut`` for every timeout (the
  /// scanner's own, or a ``/DexCloud/DexCloudError`` of kind
  /// ``/DexCloud/DexCloudError/Kind/timedOut``, also when it cut a streamed reply:
  /// ``/DexModel/InterruptedScanError``), ``identificationFailed(_:)`` otherwise.
  init(cloudFailure error: any Error) {
    switch error {
    case DexScanError.timedOut: self = .timedOut
    case let error as DexCloudError where error.kind == .timedOut: self = .timedOut
    case let error as InterruptedScanError: self = DexScanError(cloudFailure: error.reason)
    default: self = .identificationFailed(error)
    }
  }
}

extension DexScanError: Equatable {
  /// Same case, and for ``unreadableImage(_:)`` the same imaging error. The underlying error of
  /// ``identificationFailed(_:)`` and the reason of ``nothingIdentified(_:)`` are details for
  /// people, not part of the comparison: match the case with `if case` to inspect them.
  public static func == (lhs: DexScanError, rhs: DexScanError) -> Bool {
    switch (lhs, rhs) {
    case (.unreadableImage(let a), .unreadableImage(let b)): a == b
    case (.identificationFailed, .identificationFailed), (.nothingIdentified, .nothingIdentified),
      (.timedOut, .timedOut), (.cancelled, .cancelled):
      true
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

  /// What the person can do about it, where there is something: another photo, a retry later,
  /// checking the connection. `nil` for a cancelled scan.
  public var recoverySuggestion: String? {
    switch self {
    case .unreadableImage:
      "Choose a JPEG, PNG, HEIF (HEIC), AVIF or WebP photo, or take the picture again."
    case .identificationFailed(let error as DexCloudError) where !error.isTransient:
      (error as LocalizedError).recoverySuggestion ?? "Try again with another photo."
    case .identificationFailed: "Check the connection and try again later."
    case .nothingIdentified: "Move closer to the subject, or connect to identify it online."
    case .timedOut: "Check the connection and try again."
    case .cancelled: nil
    }
  }
}
