import CDexStatus

/// A result code of DexKit's C shims, mapped from their one list (`CDexStatus.h`) here and
/// nowhere else: every shim call's code goes through ``init(_:)`` and callers switch over the
/// cases. Scripts/lint.sh checks that every code of the header is mapped below.
package enum ShimStatus: Equatable, Sendable {
  /// `DEX_STATUS_OK`.
  case ok
  /// `DEX_STATUS_LIBRARY_ERROR`: the library failed; its message says why.
  case libraryError
  /// `DEX_STATUS_TRUNCATED`: the data ended before the image did.
  case truncated
  /// `DEX_STATUS_OUT_OF_MEMORY`.
  case outOfMemory
  /// `DEX_STATUS_INVALID_ARGUMENT`: a caller error.
  case invalidArgument
  /// `DEX_STATUS_TOO_LARGE`: the image exceeds the limits passed in.
  case tooLarge
  /// `DEX_STATUS_UNSUPPORTED`: the library installed cannot decode this safely.
  case unsupported
  /// `DEX_STATUS_UNAVAILABLE`: the library or its data could not be loaded.
  case unavailable
  /// `DEX_STATUS_CANCELLED`.
  case cancelled
  /// `DEX_STATUS_TIMED_OUT`.
  case timedOut
  /// `DEX_STATUS_NO_PLAN`: the network has no plan for that thread count yet.
  case noPlan
  /// A code the header does not list (a shim bug), kept for the message.
  case unknown(Int32)

  /// The case of a shim's return value.
  package init(_ code: Int32) {
    switch Int(code) {
    case DEX_STATUS_OK: self = .ok
    case DEX_STATUS_LIBRARY_ERROR: self = .libraryError
    case DEX_STATUS_TRUNCATED: self = .truncated
    case DEX_STATUS_OUT_OF_MEMORY: self = .outOfMemory
    case DEX_STATUS_INVALID_ARGUMENT: self = .invalidArgument
    case DEX_STATUS_TOO_LARGE: self = .tooLarge
    case DEX_STATUS_UNSUPPORTED: self = .unsupported
    case DEX_STATUS_UNAVAILABLE: self = .unavailable
    case DEX_STATUS_CANCELLED: self = .cancelled
    case DEX_STATUS_TIMED_OUT: self = .timedOut
    case DEX_STATUS_NO_PLAN: self = .noPlan
    default: self = .unknown(code)
    }
  }
}
