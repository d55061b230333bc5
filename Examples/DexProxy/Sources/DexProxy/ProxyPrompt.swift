/// What `dex-proxy` sends the model for one request: its own instructions, apart from what
/// the user contributed.
///
/// It exists so that the proxy's instructions travel as the conversation's `system` message,
/// where a question in the `user` message cannot close a quotation and rewrite them, and so that
/// each task bounds its own answer.
public struct ProxyPrompt: Sendable, Equatable {
  /// The proxy's instructions (the identification template, or the AI Vision rules).
  public var instructions: String
  /// The user's question, checked and normalised (``ProxyPrompts``); `nil` for an
  /// identification or an empty question.
  public var question: String?
  /// The most tokens the answer may take, below the upstream's configured maximum; `nil` for
  /// that maximum.
  public var maximumTokens: Int?

  /// Creates a prompt.
  public init(instructions: String, question: String? = nil, maximumTokens: Int? = nil) {
    self.instructions = instructions
    self.question = question
    self.maximumTokens = maximumTokens
  }
}
