import Foundation

/// Where and how the proxy reaches the OpenAI-compatible Chat Completions endpoint.
public struct UpstreamConfiguration: Sendable {
  /// The API base URL, for example `https://api.openai.com/v1`; `/chat/completions` is appended.
  public var baseURL: URL
  /// The model name sent in every request, for example `gpt-4o-mini`.
  public var model: String
  /// The provider's API key, sent as `Authorization: Bearer …`; `nil` for local servers that
  /// need none.
  public var apiKey: APIKey?
  /// How long one upstream call may take before the proxy answers 504 (default 60 s).
  public var timeout: Duration
  /// The `max_tokens` sent upstream (default 800, enough for one Dex entry).
  public var maximumTokens: Int
  /// The largest upstream response body accepted (default 2 MiB).
  public var maximumResponseBytes: Int

  /// Creates an upstream configuration.
  public init(
    baseURL: URL, model: String, apiKey: APIKey?, timeout: Duration = .seconds(60),
    maximumTokens: Int = 800, maximumResponseBytes: Int = 2 << 20
  ) {
    self.baseURL = baseURL
    self.model = model
    self.apiKey = apiKey
    self.timeout = timeout
    self.maximumTokens = maximumTokens
    self.maximumResponseBytes = maximumResponseBytes
  }

  /// `<baseURL>/chat/completions`, without doubling a trailing slash.
  var chatCompletionsURL: URL? {
    var text = baseURL.absoluteString
    while text.hasSuffix("/") { text.removeLast() }
    return URL(string: text + "/chat/completions")
  }
}
