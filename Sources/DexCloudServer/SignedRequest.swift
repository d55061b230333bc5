import DexCloud
import Foundation

/// What a backend hands to ``RequestVerifier``: the parts of an incoming request that the
/// signature covers, plus the signing headers. Framework-free, so any server (Hummingbird,
/// Vapor, a Lambda) can build one from its own request type.
public struct SignedRequest: Sendable {
  /// The HTTP method as received.
  public var method: String
  /// The request target exactly as received: percent-encoded path plus `?query` when present.
  public var path: String
  /// The raw body bytes.
  public var body: Data
  /// The `x-timestamp` header, if present.
  public var timestamp: String?
  /// The `x-signature` header, if present.
  public var signature: String?
  /// The `x-dex-session` header, if present.
  public var sessionID: String?

  /// Creates a request from already-extracted header values.
  public init(
    method: String, path: String, body: Data, timestamp: String?, signature: String?,
    sessionID: String? = nil
  ) {
    self.method = method
    self.path = path
    self.body = body
    self.timestamp = timestamp
    self.signature = signature
    self.sessionID = sessionID
  }

  /// Creates a request from a header dictionary, looking names up case-insensitively.
  public init(method: String, path: String, headers: [String: String], body: Data) {
    func header(_ name: String) -> String? {
      headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
    self.init(
      method: method, path: path, body: body,
      timestamp: header(DexCloudHeader.timestamp),
      signature: header(DexCloudHeader.signature),
      sessionID: header(DexCloudHeader.session))
  }
}
