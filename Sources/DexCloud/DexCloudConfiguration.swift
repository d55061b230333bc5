import Foundation

/// Everything ``ApiClient`` needs to reach the backend, read from configuration at run time.
///
/// The bootstrap key comes from the environment, an `.xcconfig` kept out of version control, or
/// a secrets manager; never from source code. Its description is redacted.
public struct DexCloudConfiguration: Sendable {
  /// The backend's base URL; endpoint paths are appended to its path (`https://h/api` +
  /// `/vision` = `https://h/api/vision`). Plain `http` is refused except to loopback hosts
  /// unless ``allowsInsecureHTTP`` is set.
  public var baseURL: URL
  /// The key that signs `/auth_token`.
  public var bootstrapKey: SigningSecret
  /// The opaque, non-secret client identifier sent to `/auth_token` (an installation id).
  public var subject: String?
  /// The default per-request timeout (120 s); each call may pass its own.
  public var requestTimeout: Duration
  /// Retries and their bounds.
  public var retryPolicy: RetryPolicy
  /// The largest request body sent (default 6 MiB); larger ones fail before sending with
  /// ``DexCloudError/Kind/payloadTooLarge``.
  public var maximumRequestBodyBytes: Int
  /// How long before expiry a session is refreshed (default 60 s).
  public var refreshMargin: Duration
  /// Allows plain `http` to non-loopback hosts (off by default; request signing does not hide
  /// the image or the reply from an eavesdropper).
  public var allowsInsecureHTTP: Bool
  /// The largest clock correction the client adopts from a server's `Date` header after a
  /// `timestamp_out_of_window` refusal (default 24 hours, either way). A larger one is refused
  /// (the 401 is returned): a device clock off by days is better fixed than trusted, and a
  /// reply on a hijacked or misconfigured path must not move every later signature's timestamp
  /// arbitrarily far.
  public var maximumClockCorrection: Duration

  /// Creates a configuration.
  public init(
    baseURL: URL,
    bootstrapKey: SigningSecret,
    subject: String? = nil,
    requestTimeout: Duration = .seconds(120),
    retryPolicy: RetryPolicy = .default,
    maximumRequestBodyBytes: Int = 6 << 20,
    refreshMargin: Duration = .seconds(60),
    allowsInsecureHTTP: Bool = false,
    maximumClockCorrection: Duration = .seconds(24 * 60 * 60)
  ) {
    self.baseURL = baseURL
    self.bootstrapKey = bootstrapKey
    self.subject = subject
    self.requestTimeout = requestTimeout
    self.retryPolicy = retryPolicy
    self.maximumRequestBodyBytes = maximumRequestBodyBytes
    self.refreshMargin = refreshMargin
    self.allowsInsecureHTTP = allowsInsecureHTTP
    self.maximumClockCorrection = maximumClockCorrection
  }

  /// The environment variable holding the base URL.
  public static let baseURLVariable = "DEX_CLOUD_BASE_URL"
  /// The environment variable holding the bootstrap key.
  public static let bootstrapKeyVariable = "DEX_CLOUD_BOOTSTRAP_KEY"
  /// The environment variable holding the optional subject.
  public static let subjectVariable = "DEX_CLOUD_SUBJECT"

  /// Reads `DEX_CLOUD_BASE_URL`, `DEX_CLOUD_BOOTSTRAP_KEY` and optionally `DEX_CLOUD_SUBJECT`.
  ///
  /// - Throws: ``DexCloudError`` of kind ``DexCloudError/Kind/invalidConfiguration`` naming the
  ///   missing or malformed variable (never its value).
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(DexCloudError) -> DexCloudConfiguration {
    guard let rawURL = environment[baseURLVariable], let url = URL(string: rawURL),
      url.scheme != nil, url.host != nil
    else {
      throw DexCloudError(
        kind: .invalidConfiguration, message: "\(baseURLVariable) is missing or not a URL.")
    }
    guard let key = environment[bootstrapKeyVariable].flatMap(SigningSecret.init) else {
      throw DexCloudError(
        kind: .invalidConfiguration, message: "\(bootstrapKeyVariable) is missing or empty.")
    }
    return DexCloudConfiguration(
      baseURL: url, bootstrapKey: key, subject: environment[subjectVariable])
  }
}
