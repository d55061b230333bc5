/// The HTTP header names of the signing contract, shared by the client and any backend.
///
/// Header names are case-insensitive on the wire; these are the lower-case spellings the client
/// sends. See <doc:RequestSigning> for the full contract.
public enum DexCloudHeader {
  /// The lower-case hex HMAC-SHA256 of the canonical string.
  public static let signature = "x-signature"
  /// The signing time, in whole Unix seconds, as decimal digits.
  public static let timestamp = "x-timestamp"
  /// The public session id issued by `/auth_token`; sent on every session-signed request.
  public static let session = "x-dex-session"
}
