/// Why the model call failed, as the proxy reports it to the client.
///
/// Every case maps to a status the client understands (502 or 504) and an OpenAI-style error
/// body; nothing from the request (image, prompt) or the API key is ever included.
public enum UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The upstream did not answer within the configured timeout.
  case timedOut
  /// The upstream could not be reached (refused, reset, DNS, TLS).
  case unreachable
  /// The upstream answered 429 (its own rate limit or quota).
  case rateLimited
  /// The upstream answered another non-2xx status.
  case status(Int)
  /// The upstream answered 2xx with a body that is not a chat completion with a message.
  case invalidResponse
  /// The upstream's reply passed ``UpstreamConfiguration/maximumResponseBytes`` while it
  /// streamed; the proxy stopped reading it.
  case responseTooLarge
  /// The call was cancelled: the client of a streamed reply went away.
  case cancelled

  /// The HTTP status the proxy answers with: 504 for a timeout, otherwise 502.
  public var httpStatus: Int {
    switch self {
    case .timedOut: 504
    default: 502
    }
  }

  /// Whether the call is given back to the budgets it was counted against: only when the model
  /// did no work the provider bills. An unreachable upstream, its 429 and its 5xx answers are;
  /// a timeout or an unreadable or oversized reply are not (the model may have answered and
  /// been billed), nor is another 4xx (the request was refused for what it carried, which a
  /// client could otherwise repeat for free, each one still spending the provider's rate).
  public var isRefundable: Bool {
    switch self {
    case .unreachable, .rateLimited: true
    case .status(let status): (500..<600).contains(status)
    case .timedOut, .invalidResponse, .responseTooLarge, .cancelled: false
    }
  }

  /// A stable, machine-readable code for the error body.
  public var code: String {
    switch self {
    case .timedOut: "upstream_timeout"
    case .unreachable: "upstream_unreachable"
    case .rateLimited: "upstream_rate_limited"
    case .status: "upstream_error"
    case .invalidResponse: "upstream_invalid_response"
    case .responseTooLarge: "upstream_response_too_large"
    case .cancelled: "client_closed"
    }
  }

  /// A short explanation for the client, which never names the upstream's status.
  public var description: String {
    switch self {
    case .timedOut: "The model did not answer in time."
    case .unreachable: "The model service could not be reached."
    case .rateLimited: "The model service is rate limiting the proxy; retry later."
    // Not the status itself: a 401 or 403 would tell any client that the proxy's provider key
    // is wrong. The proxy logs the status (``ChatCompletionsClient``).
    case .status(let status) where (500..<600).contains(status):
      "The model service failed; retry later."
    case .status: "The model service refused the proxy's call."
    case .invalidResponse: "The model service sent a response the proxy could not read."
    case .responseTooLarge: "The model service sent a response larger than the proxy accepts."
    case .cancelled: "The client went away; the model call was cancelled."
    }
  }
}
