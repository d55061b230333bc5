import DexCloud
import Foundation

/// The signing headers DexCloud's client sends, for the tests and load generators that craft
/// requests by hand (to replay, tamper with or time them) instead of going through `ApiClient`.
public enum SignedHeaders {
  /// The headers of a `POST` of `body` to `path`, signed now with `secret`, carrying the session
  /// id `session` when one is given.
  public static func post(
    _ path: String, body: Data, secret: SigningSecret, session: String? = nil
  ) -> [String: String] {
    var headers = RequestSigner(secret: secret).headers(
      method: "POST", path: path, body: body,
      timestamp: Int64(Date().timeIntervalSince1970.rounded(.down)))
    if let session { headers[DexCloudHeader.session] = session }
    return headers
  }
}
