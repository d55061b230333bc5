extension APIErrorDetail {
  /// The longest message kept (characters).
  static let maximumMessageLength = 300
  /// The longest `type`, `param` or `code` kept (characters).
  static let maximumFieldLength = 100

  /// The detail as it may reach an error, a log line or a user: every field scrubbed of the
  /// secrets `redactor` knows and of token-looking runs (before it is cut, so that no piece of
  /// a secret survives at the cut), then cut to a bounded length, whether it came in a
  /// refusal's body or in a streamed reply's `error` event.
  func redacted(by redactor: Redactor) -> APIErrorDetail {
    func scrubbed(_ text: String?, limit: Int) -> String? {
      text.map { String(redactor.redact($0).prefix(limit)) }
    }
    return APIErrorDetail(
      message: scrubbed(message, limit: Self.maximumMessageLength),
      type: scrubbed(type, limit: Self.maximumFieldLength),
      param: scrubbed(param, limit: Self.maximumFieldLength),
      code: scrubbed(code, limit: Self.maximumFieldLength))
  }
}
