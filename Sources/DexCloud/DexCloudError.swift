import Foundation

/// Every way a DexCloud call can fail, with what the caller needs to react and nothing secret.
///
/// It carries the HTTP status and a short, redacted excerpt of the body when there was a
/// response, and the decoded OpenAI-style ``APIErrorDetail`` when the body had one. Its
/// ``description`` (and `localizedDescription`) never contains a bootstrap key, session secret,
/// session id or signature.
public struct DexCloudError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
  /// The family of failure.
  public enum Kind: String, Sendable, Equatable {
    /// The configuration cannot work (bad base URL, missing bootstrap key).
    case invalidConfiguration
    /// The request body is over the configured limit (downscale the image and retry), or, with
    /// a status code, the response is over the transport's limit (not retried).
    case payloadTooLarge
    /// The server answered with a non-success status.
    case http
    /// No response arrived within the request timeout.
    case timedOut
    /// The connection failed (refused, reset, DNS, TLS).
    case network
    /// The task was cancelled.
    case cancelled
    /// The response could not be decoded into the expected model.
    case decoding
    /// `/auth_token` did not yield a usable session.
    case authentication
    /// The token store could not be read or written.
    case tokenStore
  }

  /// The family of failure.
  public let kind: Kind
  /// The HTTP status, when the server answered.
  public let statusCode: Int?
  /// At most 200 characters of the response body, single-line and redacted.
  public let bodyExcerpt: String?
  /// The decoded OpenAI-style error object, when the body had one (message redacted).
  public let apiError: APIErrorDetail?
  /// A short, secret-free explanation.
  public let message: String

  /// Creates an error; the caller is responsible for redacting `message` and `bodyExcerpt`.
  public init(
    kind: Kind, message: String, statusCode: Int? = nil, bodyExcerpt: String? = nil,
    apiError: APIErrorDetail? = nil
  ) {
    self.kind = kind
    self.message = message
    self.statusCode = statusCode
    self.bodyExcerpt = bodyExcerpt
    self.apiError = apiError
  }

  /// One line: the kind, the status, the message and the server's reason.
  public var description: String {
    var text = "DexCloud \(kind.rawValue) error"
    if let statusCode { text += " (HTTP \(statusCode))" }
    text += ": \(message)"
    if let detail = apiError?.message, !detail.isEmpty, detail != message {
      text += " Server said: \(detail)"
    } else if apiError == nil, let bodyExcerpt, !bodyExcerpt.isEmpty {
      text += " Body: \(bodyExcerpt)"
    }
    return text
  }

  /// The same as ``description``, for `localizedDescription`.
  public var errorDescription: String? { description }

  /// What to do about it, where there is something: check the configuration, downscale, retry
  /// later. `nil` for a cancelled call and for statuses with no general advice.
  public var recoverySuggestion: String? {
    switch kind {
    case .invalidConfiguration:
      "Check the backend's base URL and bootstrap key (see DexCloudConfiguration.fromEnvironment)."
    case .payloadTooLarge where statusCode != nil:
      // The answer, not the request: a response past the transport's limit.
      "Check that the base URL points at a DexKit proxy; its answers are a few kilobytes."
    case .payloadTooLarge: "Downscale the image and try again."
    case .http where statusCode == 401 || statusCode == 403:
      "Check the bootstrap key and the device clock."
    case .http: isTransient ? "Try again later." : nil
    case .timedOut, .network: "Check the connection and try again."
    case .authentication: "Check the bootstrap key and the backend's session settings."
    case .tokenStore: "Check that the token store's file can be read and written."
    case .decoding: "Check that the backend runs a compatible version of the DexKit proxy."
    case .cancelled: nil
    }
  }

  /// Whether the failure is worth retrying later (network trouble, timeouts, 408/429/5xx).
  public var isTransient: Bool {
    switch kind {
    case .network, .timedOut: true
    case .http: statusCode.map(RetryPolicy.defaultRetryableStatuses.contains) ?? false
    default: false
    }
  }

  static func cancelled() -> DexCloudError {
    DexCloudError(kind: .cancelled, message: "The request was cancelled.")
  }

  static func timedOut(after timeout: Duration) -> DexCloudError {
    DexCloudError(
      kind: .timedOut,
      message: "No response within \(Self.seconds(timeout)) s.")
  }

  static func payloadTooLarge(size: Int, limit: Int) -> DexCloudError {
    DexCloudError(
      kind: .payloadTooLarge,
      message: "The request body is \(size) bytes, over the \(limit)-byte limit. Downscale the "
        + "image (for example to 1024 px on the long side, JPEG quality 0.8) and try again.")
  }

  static func seconds(_ duration: Duration) -> String {
    String(format: "%.3g", duration.timeInterval)
  }
}
