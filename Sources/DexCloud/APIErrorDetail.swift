import Foundation

/// The useful part of an OpenAI-style error body: `{"error": {"message", "type", "param",
/// "code"}}`.
///
/// The proxy forwards upstream errors in this shape and the verifier answers with it, so the
/// client can read a refusal reason (for example `timestamp_out_of_window`) without string
/// matching on prose. Also accepted: `{"error": "text"}` and `{"message": "text"}`.
public struct APIErrorDetail: Sendable, Equatable, Decodable {
  /// The human-readable message (already redacted by the client).
  public var message: String?
  /// The error family, for example `invalid_request_error`.
  public var type: String?
  /// The offending parameter, when the server names one.
  public var param: String?
  /// A machine-readable code, for example `timestamp_out_of_window` or `rate_limit_exceeded`.
  public var code: String?

  /// Creates a detail value.
  public init(message: String?, type: String? = nil, param: String? = nil, code: String? = nil) {
    self.message = message
    self.type = type
    self.param = param
    self.code = code
  }

  private enum CodingKeys: String, CodingKey { case message, type, param, code }
  private enum EnvelopeKeys: String, CodingKey { case error, message }

  /// Decodes one error object, tolerating numeric codes and missing fields.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    message = try? container.decodeIfPresent(String.self, forKey: .message)
    type = try? container.decodeIfPresent(String.self, forKey: .type)
    param = try? container.decodeIfPresent(String.self, forKey: .param)
    if let text = try? container.decodeIfPresent(String.self, forKey: .code) {
      code = text
    } else if let number = try? container.decodeIfPresent(Int.self, forKey: .code) {
      code = String(number)
    } else {
      code = nil
    }
  }

  /// Reads an error body in any of the accepted shapes; `nil` when it is none of them.
  static func parse(_ body: Data) -> APIErrorDetail? {
    guard !body.isEmpty, body.count <= 1 << 20 else { return nil }
    struct Envelope: Decodable {
      var detail: APIErrorDetail?
      var text: String?
      var message: String?
      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EnvelopeKeys.self)
        detail = try? container.decodeIfPresent(APIErrorDetail.self, forKey: .error)
        text = try? container.decodeIfPresent(String.self, forKey: .error)
        message = try? container.decodeIfPresent(String.self, forKey: .message)
      }
    }
    guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body) else { return nil }
    if let detail = envelope.detail, detail.message != nil || detail.code != nil {
      return detail
    }
    if let text = envelope.text ?? envelope.message { return APIErrorDetail(message: text) }
    return nil
  }
}
