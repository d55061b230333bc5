/// The subset of the OpenAI Chat Completions request the proxy sends.
struct ChatCompletionRequest: Encodable {
  struct Message: Encodable {
    var role: String
    var content: [Part]
  }
  struct Part: Encodable {
    struct ImageURL: Encodable { var url: String }
    var type: String
    var text: String?
    var imageURL: ImageURL?

    enum CodingKeys: String, CodingKey {
      case type, text
      case imageURL = "image_url"
    }
  }

  var model: String
  var messages: [Message]
  var maxTokens: Int
  /// `true` for a streamed reply (Server-Sent Events of ``ChatCompletionChunk``); omitted
  /// otherwise.
  var stream: Bool?

  enum CodingKeys: String, CodingKey {
    case model, messages, stream
    case maxTokens = "max_tokens"
  }
}

/// The subset of the Chat Completions response the proxy reads: the first choice's message.
///
/// `content` may be a string, an array of text parts (some compatible servers) or `null` with
/// a `refusal` string (OpenAI structured refusals).
struct ChatCompletionResponse: Decodable {
  struct Choice: Decodable { var message: Message }
  struct Message: Decodable {
    var role: String?
    var content: String?
    var refusal: String?

    private enum CodingKeys: String, CodingKey { case role, content, refusal }
    private struct TextPart: Decodable { var text: String? }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      role = try? container.decodeIfPresent(String.self, forKey: .role)
      refusal = try? container.decodeIfPresent(String.self, forKey: .refusal)
      if let text = try? container.decodeIfPresent(String.self, forKey: .content) {
        content = text
      } else if let parts = try? container.decodeIfPresent([TextPart].self, forKey: .content) {
        content = parts.compactMap(\.text).joined()
      } else {
        content = nil
      }
    }
  }

  var choices: [Choice]
}

/// One event of a streamed chat completion: the first choice's `delta`, whose `content` (or
/// `refusal`) is the next piece of the message.
struct ChatCompletionChunk: Decodable {
  struct Choice: Decodable { var delta: Delta? }
  struct Delta: Decodable {
    var content: String?
    var refusal: String?
  }

  var choices: [Choice]?

  /// The piece of text this event adds.
  var text: String {
    guard let delta = choices?.first?.delta else { return "" }
    return (delta.content ?? "") + (delta.refusal ?? "")
  }
}
