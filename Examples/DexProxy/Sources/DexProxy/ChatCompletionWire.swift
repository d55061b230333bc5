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

  enum CodingKeys: String, CodingKey {
    case model, messages
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
