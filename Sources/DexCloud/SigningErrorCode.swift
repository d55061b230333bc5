/// The machine-readable codes a backend sends when it refuses a signed request, in the `code`
/// field of an OpenAI-style error body.
///
/// They are part of the wire contract, so they live with the client: ``ApiClient`` corrects its
/// clock on ``timestampOutOfWindow`` and re-signs on ``replayed``, and `DexCloudServer`'s
/// `RequestVerificationError` answers with exactly these values.
public enum SigningErrorCode: String, Sendable, Hashable, CaseIterable {
  /// A signature, timestamp or session header is absent.
  case missingHeader = "missing_signature_header"
  /// `x-timestamp` is not decimal Unix seconds.
  case malformedTimestamp = "malformed_timestamp"
  /// `x-timestamp` is outside the server's window; the response's `Date` header has its clock.
  case timestampOutOfWindow = "timestamp_out_of_window"
  /// `x-signature` is not 64 lower-case hex digits.
  case malformedSignature = "malformed_signature"
  /// The signature does not match.
  case signatureMismatch = "invalid_signature"
  /// The same signature was already accepted inside the window.
  case replayed = "replayed_request"
  /// The server cannot check for replays right now.
  case replayCacheFull = "replay_cache_full"
  /// The session id is malformed, forged, or signed with a retired server key.
  case invalidSession = "invalid_session"
  /// The session id was valid but has expired.
  case sessionExpired = "session_expired"
}
