import DexCloud
import Foundation

/// Why a backend refused a signed request.
///
/// Each case maps to an HTTP status (``httpStatus``) and a stable machine-readable ``code`` that
/// the backend sends in an OpenAI-style error body (``responseBody``). The client relies on
/// `timestamp_out_of_window` (with a `Date` header) to correct its clock. Descriptions never
/// contain the signature, the session id or any secret.
public enum RequestVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A required header is absent; the associated value is the header name.
  case missingHeader(String)
  /// `x-timestamp` is not decimal Unix seconds.
  case malformedTimestamp
  /// `x-timestamp` is outside the allowed window; the value is `timestamp - now` in seconds.
  case timestampOutOfWindow(skewSeconds: Int64)
  /// `x-signature` is not 64 lower-case hex digits.
  case malformedSignature
  /// The signature does not match any accepted secret.
  case signatureMismatch
  /// The same signature was already accepted inside the window.
  case replayed
  /// The replay cache is full of live entries; the request cannot be checked for replay.
  case replayCacheFull
  /// The session id is malformed, forged, or signed with a retired server key.
  case invalidSession
  /// The session id was valid but has expired.
  case sessionExpired

  /// The HTTP status a backend should answer with: 401, or 503 for ``replayCacheFull``.
  public var httpStatus: Int {
    switch self {
    case .replayCacheFull: 503
    default: 401
    }
  }

  /// The wire code for this refusal, shared with the client (``/DexCloud/SigningErrorCode``).
  public var signingErrorCode: SigningErrorCode {
    switch self {
    case .missingHeader: .missingHeader
    case .malformedTimestamp: .malformedTimestamp
    case .timestampOutOfWindow: .timestampOutOfWindow
    case .malformedSignature: .malformedSignature
    case .signatureMismatch: .signatureMismatch
    case .replayed: .replayed
    case .replayCacheFull: .replayCacheFull
    case .invalidSession: .invalidSession
    case .sessionExpired: .sessionExpired
    }
  }

  /// A stable, machine-readable code for the error body (``signingErrorCode``'s raw value).
  public var code: String { signingErrorCode.rawValue }

  /// A short, secret-free explanation.
  public var description: String {
    switch self {
    case .missingHeader(let name): "The request has no \(name) header."
    case .malformedTimestamp: "The x-timestamp header is not Unix seconds."
    case .timestampOutOfWindow(let skew):
      "The request timestamp is \(skew) s away from the server clock, outside the window."
    case .malformedSignature: "The x-signature header is not 64 lower-case hex digits."
    case .signatureMismatch: "The request signature does not match."
    case .replayed: "The request was already used."
    case .replayCacheFull: "The server cannot check for replays right now; retry later."
    case .invalidSession: "The session is not valid."
    case .sessionExpired: "The session has expired."
    }
  }

  /// An OpenAI-style JSON error body (`{"error":{"message":…,"type":…,"code":…}}`) that a
  /// backend can send as is.
  public var responseBody: Data {
    let body: [String: [String: String]] = [
      "error": ["message": description, "type": "authentication_error", "code": code]
    ]
    return (try? JSONEncoder().encode(body)) ?? Data()
  }
}

extension RequestVerificationError: LocalizedError {
  /// The same text as ``description``, so `localizedDescription` says what went wrong.
  public var errorDescription: String? { description }
}
